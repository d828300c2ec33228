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

// Dequantize W exactly (int8 times its group's scale) into K x N order, then Y = X W^T accumulated
// in double; the inner loop runs over independent outputs, so it vectorizes.
void w8a16_gemm(int M, int N, int K, const unsigned short* X, const signed char* Wq, const float* scales, float* Y) {
    const int groups = (K + 127) / 128;
    std::vector<double> wt(static_cast<size_t>(K) * N), acc(static_cast<size_t>(N));
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k)
            wt[static_cast<size_t>(k) * N + n] =
                static_cast<double>(Wq[static_cast<size_t>(n) * K + k]) * scales[static_cast<size_t>(n) * groups + k / 128];
    for (int m = 0; m < M; ++m) {
        for (int n = 0; n < N; ++n) acc[n] = 0.0;
        for (int k = 0; k < K; ++k) {
            const double xk = half_to_float(X[static_cast<size_t>(m) * K + k]);
            const double* row = &wt[static_cast<size_t>(k) * N];
            for (int n = 0; n < N; ++n) acc[n] += xk * row[n];
        }
        for (int n = 0; n < N; ++n) Y[static_cast<size_t>(m) * N + n] = static_cast<float>(acc[n]);
    }
}
