// steps: vectorized_access, read_only_cache
// When dim is a multiple of 16, a thread rotates 8 consecutive pairs: one 16-byte load of 8 fp16
// values from each half of the head, two float4 loads each of cosines and sines (through the
// read-only path: the same cache row serves every head of the token), and two 16-byte stores.
// That quarters the memory instructions of the one-pair-per-thread port, whose 2-byte accesses
// cannot keep enough bytes in flight to saturate HBM. Other widths take the scalar kernel.
#include <cuda_fp16.h>

__global__ void __launch_bounds__(256) rope_vec8(int tokens, int heads, int dim, const __half* __restrict__ x,
                                                 const int* __restrict__ pos, const float* __restrict__ cos_sin,
                                                 __half* __restrict__ y) {
    const int half = dim >> 1, groups = half >> 3;  // 8-pair groups per head
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)tokens * heads * groups) return;
    const int g = (int)(idx % groups);
    const long long th = idx / groups;
    const int t = (int)(th / heads);
    const long long row = th * dim;
    const float* cs = cos_sin + (long long)__ldg(pos + t) * dim + 8 * g;
    const uint4 va = *reinterpret_cast<const uint4*>(x + row + 8 * g);
    const uint4 vb = *reinterpret_cast<const uint4*>(x + row + half + 8 * g);
    const float4 c0 = __ldg(reinterpret_cast<const float4*>(cs)), c1 = __ldg(reinterpret_cast<const float4*>(cs) + 1);
    const float4 s0 = __ldg(reinterpret_cast<const float4*>(cs + half));
    const float4 s1 = __ldg(reinterpret_cast<const float4*>(cs + half) + 1);
    const float c[8] = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
    const float s[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
    const __half2* a2 = reinterpret_cast<const __half2*>(&va);
    const __half2* b2 = reinterpret_cast<const __half2*>(&vb);
    uint4 oa, ob;
    __half2* oa2 = reinterpret_cast<__half2*>(&oa);
    __half2* ob2 = reinterpret_cast<__half2*>(&ob);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const float2 a = __half22float2(a2[k]), b = __half22float2(b2[k]);
        const float cx = c[2 * k], cy = c[2 * k + 1], sx = s[2 * k], sy = s[2 * k + 1];
        oa2[k] = __floats2half2_rn(a.x * cx - b.x * sx, a.y * cy - b.y * sy);
        ob2[k] = __floats2half2_rn(b.x * cx + a.x * sx, b.y * cy + a.y * sy);
    }
    *reinterpret_cast<uint4*>(y + row + 8 * g) = oa;
    *reinterpret_cast<uint4*>(y + row + half + 8 * g) = ob;
}

__global__ void rope_scalar(int tokens, int heads, int dim, const __half* __restrict__ x, const int* __restrict__ pos,
                            const float* __restrict__ cos_sin, __half* __restrict__ y) {
    const int half = dim / 2;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)tokens * heads * half) return;
    const int i = (int)(idx % half);
    const long long th = idx / half;
    const long long row = th * dim;
    const float* cs = cos_sin + (long long)__ldg(pos + th / heads) * dim;
    const float a = __half2float(x[row + i]), b = __half2float(x[row + half + i]);
    const float c = __ldg(cs + i), s = __ldg(cs + half + i);
    y[row + i] = __float2half_rn(a * c - b * s);
    y[row + half + i] = __float2half_rn(b * c + a * s);
}

void rope_rotary_f16(int tokens, int heads, int dim, int max_pos, const unsigned short* x, const int* pos,
                     const float* cos_sin, unsigned short* y) {
    (void)max_pos;
    const __half* xh = reinterpret_cast<const __half*>(x);
    __half* yh = reinterpret_cast<__half*>(y);
    if (dim % 16 == 0) {  // every 8-value group and cache chunk is 16-byte aligned
        const long long work = (long long)tokens * heads * (dim / 16);
        if (work > 0) rope_vec8<<<(unsigned)((work + 255) / 256), 256>>>(tokens, heads, dim, xh, pos, cos_sin, yh);
    } else {
        const long long work = (long long)tokens * heads * (dim / 2);
        if (work > 0) rope_scalar<<<(unsigned)((work + 255) / 256), 256>>>(tokens, heads, dim, xh, pos, cos_sin, yh);
    }
}
