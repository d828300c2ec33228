#include <cstddef>
#include <vector>

// Right-looking Doolittle elimination without pivoting, in double, one matrix at a time.
void batched_lu_f32(int batch, int n, const float* A, float* LU) {
    std::vector<double> a(static_cast<size_t>(n) * n);
    for (int b = 0; b < batch; ++b) {
        const float* src = A + static_cast<long long>(b) * n * n;
        for (int t = 0; t < n * n; ++t) a[t] = src[t];
        for (int p = 0; p < n; ++p) {
            const double inv = 1.0 / a[p * n + p];
            for (int i = p + 1; i < n; ++i) {
                const double l = a[i * n + p] * inv;
                a[i * n + p] = l;
                for (int j = p + 1; j < n; ++j) a[i * n + j] -= l * a[p * n + j];
            }
        }
        float* dst = LU + static_cast<long long>(b) * n * n;
        for (int t = 0; t < n * n; ++t) dst[t] = static_cast<float>(a[t]);
    }
}
