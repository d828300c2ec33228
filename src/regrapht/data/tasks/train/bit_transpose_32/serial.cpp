#include <cstdint>

void bit_transpose_32(int blocks, const unsigned int* in, unsigned int* out) {
    for (int b = 0; b < blocks; ++b) {
        const uint32_t* src = in + 32LL * b;
        uint32_t* dst = out + 32LL * b;
        for (int c = 0; c < 32; ++c) {
            uint32_t word = 0;
            for (int r = 0; r < 32; ++r) word |= ((src[r] >> c) & 1u) << r;
            dst[c] = word;
        }
    }
}
