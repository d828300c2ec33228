#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

// IEEE binary16 bits -> float.
static float f16_to_f32(unsigned short h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
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

void attn_scores_f16(int heads, int L, int d, float scale, const unsigned short* Q, const unsigned short* Kt,
                     float* S) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    std::vector<float> q(static_cast<size_t>(L) * d), k(static_cast<size_t>(L) * d);
    for (int h = 0; h < heads; ++h) {
        const long long off = static_cast<long long>(h) * L * d;
        for (long long t = 0; t < static_cast<long long>(L) * d; ++t) {
            q[t] = f16_to_f32(Q[off + t]);
            k[t] = f16_to_f32(Kt[off + t]);
        }
        float* s = S + static_cast<long long>(h) * L * L;
        for (int i = 0; i < L; ++i) {
            for (int j = 0; j < L; ++j) {
                if (j > i) {
                    s[static_cast<long long>(i) * L + j] = neg_inf;
                    continue;
                }
                double dot = 0.0;
                for (int c = 0; c < d; ++c) dot += static_cast<double>(q[i * d + c]) * k[j * d + c];
                s[static_cast<long long>(i) * L + j] = static_cast<float>(scale * dot);
            }
        }
    }
}
