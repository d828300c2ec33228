#include <cstdint>
#include <cstring>
#include <vector>

static float bf16_bits_to_float(unsigned short h) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void bf16_batched_matmul(int batch, int m, int n, int k, const unsigned short* A, const unsigned short* B,
                         float* C) {
    std::vector<double> acc(n);
    for (int b = 0; b < batch; ++b) {
        const unsigned short* a = A + static_cast<long long>(b) * m * k;
        const unsigned short* bm = B + static_cast<long long>(b) * k * n;
        float* c = C + static_cast<long long>(b) * m * n;
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) acc[j] = 0.0;
            for (int p = 0; p < k; ++p) {
                const double av = bf16_bits_to_float(a[i * k + p]);
                for (int j = 0; j < n; ++j) acc[j] += av * bf16_bits_to_float(bm[p * n + j]);
            }
            for (int j = 0; j < n; ++j) c[i * n + j] = static_cast<float>(acc[j]);
        }
    }
}
