#include <algorithm>
#include <vector>

void linear_bias_relu(int M, int N, int K, const float* X, const float* W, const float* bias, float* Y) {
    // Transpose the weights once so that the inner loop runs over contiguous output features.
    std::vector<float> Wt(static_cast<size_t>(K) * N);
    for (int j = 0; j < N; ++j)
        for (int p = 0; p < K; ++p) Wt[static_cast<size_t>(p) * N + j] = W[static_cast<long long>(j) * K + p];
    std::vector<double> acc(N);
    for (int i = 0; i < M; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const float* x = X + static_cast<long long>(i) * K;
        for (int p = 0; p < K; ++p) {
            const double xp = x[p];
            const float* w = Wt.data() + static_cast<size_t>(p) * N;
            for (int j = 0; j < N; ++j) acc[j] += xp * w[j];
        }
        float* y = Y + static_cast<long long>(i) * N;
        for (int j = 0; j < N; ++j) y[j] = static_cast<float>(std::max(acc[j] + bias[j], 0.0));
    }
}
