#include <cstdint>
#include <cstring>
#include <vector>

// fp16 -> fp32 by hand (IEEE binary16), so the reference needs no CUDA headers.
static float half_to_float(unsigned short h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: normalize
            int e = -1;
            do { man <<= 1; ++e; } while ((man & 0x400u) == 0);
            bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Dequantize W exactly (int8 times its group's scale), then Y = X W^T accumulated in double.
void w8a16_gemm(int M, int N, int K, const unsigned short* X, const signed char* Wq, const float* scales, float* Y) {
    const int groups = (K + 127) / 128;
    std::vector<double> w(static_cast<size_t>(N) * K), x(static_cast<size_t>(K));
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            w[static_cast<size_t>(n) * K + k] =
                static_cast<double>(Wq[static_cast<size_t>(n) * K + k]) * scales[static_cast<size_t>(n) * groups + k / 128];
    for (int m = 0; m < M; ++m) {
        for (int k = 0; k < K; ++k) x[k] = half_to_float(X[static_cast<size_t>(m) * K + k]);
        for (int n = 0; n < N; ++n) {
            const double* row = &w[static_cast<size_t>(n) * K];
            double acc = 0.0;
            for (int k = 0; k < K; ++k) acc += x[k] * row[k];
            Y[static_cast<size_t>(m) * N + n] = static_cast<float>(acc);
        }
    }
}
