#include <vector>

void sgemm(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
    std::vector<double> row(N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) row[j] = 0.0;
        // i-p-j order walks B and the accumulator row contiguously.
        for (int p = 0; p < K; ++p) {
            const double a = A[static_cast<long long>(i) * K + p];
            const float* b = B + static_cast<long long>(p) * N;
            for (int j = 0; j < N; ++j) row[j] += a * b[j];
        }
        float* c = C + static_cast<long long>(i) * N;
        for (int j = 0; j < N; ++j) c[j] = static_cast<float>(alpha * row[j] + static_cast<double>(beta) * c[j]);
    }
}
