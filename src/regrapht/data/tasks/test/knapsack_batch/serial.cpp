#include <algorithm>
#include <vector>

void knapsack_batch(int instances, int items, int capacity, const int* weight, const int* value, int* best) {
    std::vector<int> dp(capacity + 1);
    for (int i = 0; i < instances; ++i) {
        std::fill(dp.begin(), dp.end(), 0);
        for (int k = 0; k < items; ++k) {
            const int w = weight[static_cast<long long>(i) * items + k];
            const int v = value[static_cast<long long>(i) * items + k];
            for (int c = capacity; c >= w; --c) dp[c] = std::max(dp[c], dp[c - w] + v);
        }
        best[i] = dp[capacity];
    }
}
