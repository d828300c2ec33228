#include <vector>

// i-p-j order with a 32-bit accumulator row: exact, since |a*b| <= 2^14 and K < 2^17.
void igemm_s8(int M, int N, int K, const signed char* A, const signed char* B, int* C) {
    std::vector<int> row(N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) row[j] = 0;
        for (int p = 0; p < K; ++p) {
            const int a = A[static_cast<long long>(i) * K + p];
            const signed char* b = B + static_cast<long long>(p) * N;
            for (int j = 0; j < N; ++j) row[j] += a * b[j];
        }
        for (int j = 0; j < N; ++j) C[static_cast<long long>(i) * N + j] = row[j];
    }
}
