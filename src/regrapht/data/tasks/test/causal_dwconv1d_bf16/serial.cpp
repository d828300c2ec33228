#include <cmath>
#include <cstdint>
#include <cstring>

// A bfloat16 value is the upper half of an fp32 bit pattern.
static float widen(unsigned short h) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Each channel convolved with its own K causal taps (zero history before t = 0), then SiLU.
void causal_dwconv1d_bf16(int batch, int L, int C, int K, const unsigned short* x, const float* w, const float* bias,
                          float* y) {
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < L; ++t)
            for (int c = 0; c < C; ++c) {
                float acc = bias[c];
                for (int k = 0; k < K; ++k) {
                    const int src = t - K + 1 + k;
                    if (src >= 0) acc += w[c * K + k] * widen(x[(static_cast<long long>(b) * L + src) * C + c]);
                }
                y[(static_cast<long long>(b) * L + t) * C + c] = acc / (1.0f + std::exp(-acc));
            }
}
