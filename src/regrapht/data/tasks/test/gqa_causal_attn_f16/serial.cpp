#include <cmath>
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

// Two passes per query row in double: the scores of keys 0..i (and their maximum), then the
// normalized weighted sum of the values. K is kept transposed so that the score loop runs over
// independent keys.
void gqa_causal_attn_f16(int batch, int Hq, int Hkv, int L, int D, const unsigned short* Q, const unsigned short* K,
                         const unsigned short* V, float* O) {
    const int group = Hq / Hkv;
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    std::vector<double> q(D), score(L), acc(D);
    std::vector<float> kt(static_cast<size_t>(L) * D), v(static_cast<size_t>(L) * D);  // K transposed: D x L
    for (int b = 0; b < batch; ++b)
        for (int h = 0; h < Hq; ++h) {
            const size_t kv = ((static_cast<size_t>(b) * Hkv + h / group) * L) * D;
            for (int j = 0; j < L; ++j)
                for (int d = 0; d < D; ++d) {
                    kt[static_cast<size_t>(d) * L + j] = half_to_float(K[kv + static_cast<size_t>(j) * D + d]);
                    v[static_cast<size_t>(j) * D + d] = half_to_float(V[kv + static_cast<size_t>(j) * D + d]);
                }
            const size_t qo = ((static_cast<size_t>(b) * Hq + h) * L) * D;
            for (int i = 0; i < L; ++i) {
                for (int d = 0; d < D; ++d) q[d] = half_to_float(Q[qo + static_cast<size_t>(i) * D + d]);
                for (int j = 0; j <= i; ++j) score[j] = 0.0;
                for (int d = 0; d < D; ++d) {  // independent sums per key: the inner loop vectorizes
                    const float* col = &kt[static_cast<size_t>(d) * L];
                    for (int j = 0; j <= i; ++j) score[j] += q[d] * col[j];
                }
                double top = -INFINITY;
                for (int j = 0; j <= i; ++j) {
                    score[j] *= scale;
                    top = std::fmax(top, score[j]);
                }
                double total = 0.0;
                for (int d = 0; d < D; ++d) acc[d] = 0.0;
                for (int j = 0; j <= i; ++j) {
                    const double p = std::exp(score[j] - top);
                    total += p;
                    for (int d = 0; d < D; ++d) acc[d] += p * v[static_cast<size_t>(j) * D + d];
                }
                for (int d = 0; d < D; ++d) O[qo + static_cast<size_t>(i) * D + d] = static_cast<float>(acc[d] / total);
            }
        }
}
