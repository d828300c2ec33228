#include <vector>

void gemv_transposed(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    std::vector<double> acc(n, 0.0);
    for (int i = 0; i < m; ++i) {
        const double xi = x[i];
        const float* row = A + static_cast<long long>(i) * n;
        for (int j = 0; j < n; ++j) acc[j] += xi * row[j];
    }
    for (int j = 0; j < n; ++j) y[j] = static_cast<float>(alpha * acc[j] + static_cast<double>(beta) * y[j]);
}
