#include <cuda_fp16.h>

// One thread per rotated pair (token, head, i < dim/2): two fp16 loads, the token's cosine and sine,
// two fp16 stores.
__global__ void rope_naive(int tokens, int heads, int dim, const __half* x, const int* pos, const float* cos_sin,
                           __half* y) {
    const int half = dim / 2;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)tokens * heads * half) return;
    const int i = (int)(idx % half);
    const long long th = idx / half;  // token * heads + head
    const int t = (int)(th / heads);
    const long long row = th * dim;
    const float* cs = cos_sin + (long long)pos[t] * dim;
    const float a = __half2float(x[row + i]), b = __half2float(x[row + half + i]);
    const float c = cs[i], s = cs[half + i];
    y[row + i] = __float2half_rn(a * c - b * s);
    y[row + half + i] = __float2half_rn(b * c + a * s);
}

void rope_rotary_f16(int tokens, int heads, int dim, int max_pos, const unsigned short* x, const int* pos,
                     const float* cos_sin, unsigned short* y) {
    (void)max_pos;
    const long long pairs = (long long)tokens * heads * (dim / 2);
    if (pairs <= 0) return;
    rope_naive<<<(unsigned)((pairs + 255) / 256), 256>>>(tokens, heads, dim, reinterpret_cast<const __half*>(x), pos,
                                                        cos_sin, reinterpret_cast<__half*>(y));
}
