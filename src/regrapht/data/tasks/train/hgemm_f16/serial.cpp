#include <cstdint>
#include <cstring>
#include <vector>

// IEEE binary16 bits -> float (normals, subnormals, zeros, infinities and NaNs).
static float half_bits_to_float(unsigned short h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: renormalize
            int e = -1;
            do { man <<= 1; ++e; } while ((man & 0x400u) == 0);
            bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (man & 0x3ffu) << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | man << 13;
    } else {
        bits = sign | (exp + 112u) << 23 | man << 13;
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void hgemm_f16(int M, int N, int K, const unsigned short* A, const unsigned short* B, float* C) {
    std::vector<float> b(static_cast<size_t>(K) * N);
    for (size_t i = 0; i < b.size(); ++i) b[i] = half_bits_to_float(B[i]);
    std::vector<double> row(N);
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) row[j] = 0.0;
        for (int p = 0; p < K; ++p) {
            const double a = half_bits_to_float(A[static_cast<long long>(i) * K + p]);
            const float* bp = b.data() + static_cast<long long>(p) * N;
            for (int j = 0; j < N; ++j) row[j] += a * bp[j];
        }
        for (int j = 0; j < N; ++j) C[static_cast<long long>(i) * N + j] = static_cast<float>(row[j]);
    }
}
