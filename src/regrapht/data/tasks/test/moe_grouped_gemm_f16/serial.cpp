#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// IEEE binary16 bits -> double (every fp16 value is exact in double).
static double fp16_value(unsigned short h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(mantissa), -24);
    else if (exponent == 31)
        magnitude = mantissa == 0 ? INFINITY : NAN;
    else
        magnitude = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

void moe_grouped_gemm_f16(int tokens, int groups, int K, int N, const int* group_start, const unsigned short* X,
                          const unsigned short* W, float* Y) {
    (void)tokens;
    std::vector<double> expert(static_cast<size_t>(K) * N), sum(N);
    for (int g = 0; g < groups; ++g) {
        if (group_start[g] == group_start[g + 1]) continue;
        const unsigned short* wg = W + static_cast<long long>(g) * K * N;
        for (size_t e = 0; e < expert.size(); ++e) expert[e] = fp16_value(wg[e]);
        for (int r = group_start[g]; r < group_start[g + 1]; ++r) {
            std::fill(sum.begin(), sum.end(), 0.0);
            for (int t = 0; t < K; ++t) {
                const double a = fp16_value(X[static_cast<long long>(r) * K + t]);
                const double* wrow = &expert[static_cast<size_t>(t) * N];
                for (int c = 0; c < N; ++c) sum[c] += a * wrow[c];
            }
            for (int c = 0; c < N; ++c) Y[static_cast<long long>(r) * N + c] = static_cast<float>(sum[c]);
        }
    }
}
