// regrapht-expect: parallelize, warp_shuffle_reduction, fast_math_intrinsics, vectorized_access
#include <cuda_runtime.h>
#include <float.h>

// One warp per row; rows are read as float4 (cols must be a multiple of 4).
__global__ void softmax_rows(const float* in, float* out, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    const float4* row_in = reinterpret_cast<const float4*>(in + (size_t)warp * cols);
    float4* row_out = reinterpret_cast<float4*>(out + (size_t)warp * cols);
    int n4 = cols / 4;
    float m = -FLT_MAX;
    for (int j = lane; j < n4; j += 32) {
        float4 v = row_in[j];
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float s = 0.0f;
    for (int j = lane; j < n4; j += 32) {
        float4 v = row_in[j];
        s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    float inv = __fdividef(1.0f, s);
    for (int j = lane; j < n4; j += 32) {
        float4 v = row_in[j];
        row_out[j] = make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv,
                                 __expf(v.w - m) * inv);
    }
}
