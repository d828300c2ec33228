#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

// IEEE binary16 bits -> float (zeros, subnormals, normals, infinities and NaNs).
static float half_value(unsigned short h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
    if (exponent == 0 && mantissa == 0) {
        bits = sign;
    } else if (exponent == 0) {
        int shift = 0;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            ++shift;
        }
        bits = sign | static_cast<uint32_t>(113 - shift) << 23 | (mantissa & 0x3ffu) << 13;
    } else if (exponent == 31) {
        bits = sign | 0x7f800000u | mantissa << 13;
    } else {
        bits = sign | (exponent + 112u) << 23 | mantissa << 13;
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void window_attention_f16(int windows, int L, int d, const unsigned short* Q, const unsigned short* K,
                          const unsigned short* V, float* O) {
    const long long block = static_cast<long long>(L) * d;
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    std::vector<double> q(block), k(block), v(block), weight(L), out(d);
    for (int w = 0; w < windows; ++w) {
        for (long long e = 0; e < block; ++e) {
            q[e] = half_value(Q[w * block + e]);
            k[e] = half_value(K[w * block + e]);
            v[e] = half_value(V[w * block + e]);
        }
        for (int i = 0; i < L; ++i) {
            double top = -INFINITY;
            for (int j = 0; j < L; ++j) {
                double dot = 0.0;
                for (int c = 0; c < d; ++c) dot += q[i * d + c] * k[j * d + c];
                weight[j] = dot * scale;
                top = std::fmax(top, weight[j]);
            }
            double total = 0.0;
            for (int j = 0; j < L; ++j) {
                weight[j] = std::exp(weight[j] - top);
                total += weight[j];
            }
            for (int c = 0; c < d; ++c) out[c] = 0.0;
            for (int j = 0; j < L; ++j)
                for (int c = 0; c < d; ++c) out[c] += weight[j] * v[j * d + c];
            for (int c = 0; c < d; ++c) O[w * block + i * d + c] = static_cast<float>(out[c] / total);
        }
    }
}
