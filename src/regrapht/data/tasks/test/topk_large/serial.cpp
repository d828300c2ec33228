#include <algorithm>
#include <numeric>
#include <vector>

// Top-k retrieval over a large score vector (e.g. the best candidates of a brute-force search).
void topk_large(int n, int k, const float* scores, float* top_values, int* top_index) {
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [scores](int a, int b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
    });
    for (int j = 0; j < k; ++j) {
        top_values[j] = scores[idx[j]];
        top_index[j] = idx[j];
    }
}
