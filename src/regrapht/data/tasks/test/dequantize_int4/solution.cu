// steps: parallelize, vectorized_access
// Each thread turns one 32-bit word of packed codes (8 elements) into two float4 stores; a tail
// shorter than 8 elements falls back to byte reads. Group index math is per element because a
// group may end inside a word when group_size is not a multiple of 8.
#include <cstdint>

__global__ void dequantize_words(long long n, int group_size, const unsigned char* __restrict__ packed,
                                 const float* __restrict__ scales, const unsigned char* __restrict__ zeros,
                                 float* __restrict__ weights) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long base = t * 8;
    if (base >= n) return;
    float r[8];
    if (base + 8 <= n) {
        const uint32_t word = __ldg(reinterpret_cast<const uint32_t*>(packed) + t);
        if (group_size % 8 == 0) {
            const long long g = base / group_size;
            const float scale = __ldg(scales + g);
            const int zero = __ldg(zeros + g);
#pragma unroll
            for (int j = 0; j < 8; ++j) r[j] = static_cast<float>(static_cast<int>((word >> (4 * j)) & 0xFu) - zero) * scale;
        } else {
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const long long g = (base + j) / group_size;
                r[j] = static_cast<float>(static_cast<int>((word >> (4 * j)) & 0xFu) - static_cast<int>(__ldg(zeros + g))) *
                       __ldg(scales + g);
            }
        }
        float4* out = reinterpret_cast<float4*>(weights + base);
        out[0] = make_float4(r[0], r[1], r[2], r[3]);
        out[1] = make_float4(r[4], r[5], r[6], r[7]);
    } else {
        for (long long i = base; i < n; ++i) {
            const long long g = i / group_size;
            const unsigned char byte = packed[i / 2];
            const int code = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
            weights[i] = static_cast<float>(code - static_cast<int>(zeros[g])) * scales[g];
        }
    }
}

void dequantize_int4(int groups, int group_size, const unsigned char* packed, const float* scales,
                     const unsigned char* zeros, float* weights) {
    const long long n = static_cast<long long>(groups) * group_size;
    if (n <= 0) return;
    const long long threads = (n + 7) / 8;
    dequantize_words<<<static_cast<unsigned int>((threads + 255) / 256), 256>>>(n, group_size, packed, scales, zeros,
                                                                               weights);
}
