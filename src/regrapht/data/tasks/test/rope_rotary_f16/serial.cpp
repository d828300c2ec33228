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

// Rotate each (i, i + dim/2) pair of every head by its token's angle.
void rope_rotary_f16(int tokens, int heads, int dim, int max_pos, const unsigned short* x, const int* pos,
                     const float* cos_sin, unsigned short* y) {
    (void)max_pos;
    const int half = dim / 2;
    for (int t = 0; t < tokens; ++t) {
        const float* cs = cos_sin + static_cast<long long>(pos[t]) * dim;
        for (int hd = 0; hd < heads; ++hd) {
            const long long row = (static_cast<long long>(t) * heads + hd) * dim;
            for (int i = 0; i < half; ++i) {
                const float a = half_to_float(x[row + i]), b = half_to_float(x[row + half + i]);
                const float c = cs[i], s = cs[half + i];
                y[row + i] = float_to_half(a * c - b * s);
                y[row + half + i] = float_to_half(b * c + a * s);
            }
        }
    }
}
