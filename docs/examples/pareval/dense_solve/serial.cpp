#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

// Gaussian elimination with partial pivoting on copies of A and b, then back substitution.
void solveLinearSystem(const double* A, const double* b, double* x, size_t N) {
    std::vector<double> m(A, A + N * N), r(b, b + N);
    for (size_t k = 0; k < N; ++k) {
        size_t pivot = k;
        for (size_t i = k + 1; i < N; ++i)
            if (std::fabs(m[i * N + k]) > std::fabs(m[pivot * N + k])) pivot = i;
        if (pivot != k) {
            for (size_t j = 0; j < N; ++j) std::swap(m[k * N + j], m[pivot * N + j]);
            std::swap(r[k], r[pivot]);
        }
        for (size_t i = k + 1; i < N; ++i) {
            double f = m[i * N + k] / m[k * N + k];
            for (size_t j = k; j < N; ++j) m[i * N + j] -= f * m[k * N + j];
            r[i] -= f * r[k];
        }
    }
    for (size_t i = N; i-- > 0;) {
        double s = r[i];
        for (size_t j = i + 1; j < N; ++j) s -= m[i * N + j] * x[j];
        x[i] = s / m[i * N + i];
    }
}
