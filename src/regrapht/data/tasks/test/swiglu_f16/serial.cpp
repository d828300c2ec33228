#include <cmath>
#include <cstdint>
#include <cstring>

// fp16 <-> fp32 by hand (IEEE binary16, round to nearest even), so the reference needs no CUDA headers.
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

static unsigned short float_to_half(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<unsigned short>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    if (abs >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // rounds past 65504
    if (abs < 0x38800000u) {  // below 2^-14: subnormal or zero
        const uint32_t man = (abs & 0x7fffffu) | 0x800000u;
        const int shift = 126 - static_cast<int>(abs >> 23);  // 14 + (113 - exponent)
        if (shift > 24) return static_cast<unsigned short>(sign);
        uint32_t q = man >> shift;
        const uint32_t rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (q & 1u))) ++q;
        return static_cast<unsigned short>(sign | q);
    }
    uint32_t q = ((abs >> 23) - 112) << 10 | ((abs >> 13) & 0x3ffu);
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) ++q;
    return static_cast<unsigned short>(sign | q);
}

// y = silu(gate) * up, row by row.
void swiglu_f16(int M, int N, const unsigned short* x, unsigned short* y) {
    for (int r = 0; r < M; ++r) {
        const unsigned short* gate = x + 2LL * r * N;
        const unsigned short* up = gate + N;
        for (int j = 0; j < N; ++j) {
            const float g = half_to_float(gate[j]);
            const float silu = g / (1.0f + std::exp(-g));
            y[static_cast<long long>(r) * N + j] = float_to_half(silu * half_to_float(up[j]));
        }
    }
}
