#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

// A bfloat16 value is the upper half of an fp32 bit pattern.
static float widen(unsigned short h) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void geglu_proj_bf16(int M, int N, int K, const unsigned short* X, const unsigned short* W, const float* bias,
                     float* Y) {
    const long long width = 2LL * N;  // gate columns, then up columns
    std::vector<float> wf(static_cast<size_t>(K) * width);
    for (size_t e = 0; e < wf.size(); ++e) wf[e] = widen(W[e]);
    std::vector<double> h(width);
    for (int r = 0; r < M; ++r) {
        for (long long c = 0; c < width; ++c) h[c] = bias[c];
        for (int t = 0; t < K; ++t) {
            const double a = widen(X[static_cast<long long>(r) * K + t]);
            const float* wt = &wf[static_cast<size_t>(t) * width];
            for (long long c = 0; c < width; ++c) h[c] += a * wt[c];
        }
        for (int c = 0; c < N; ++c) {
            const double g = h[c], u = h[N + c];
            Y[static_cast<long long>(r) * N + c] = static_cast<float>(0.5 * g * std::erfc(-g / std::sqrt(2.0)) * u);
        }
    }
}
