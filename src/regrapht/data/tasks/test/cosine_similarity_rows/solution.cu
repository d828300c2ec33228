// steps: parallelize, work_decomposition, memory_coalescing, vectorized_access, warp_shuffle_reduction
// One warp per row: lanes read consecutive float4s of both rows (coalesced 512-byte warp loads),
// keep three float partial sums, and combine them with xor shuffles. Rows whose length is not a
// multiple of 4 are not 16-byte aligned, so they take the scalar (still coalesced) path.
constexpr int kWarpsPerBlock = 8;

__global__ void cosine_warp_per_row(int rows, int dim, const float* __restrict__ a, const float* __restrict__ b,
                                    float* __restrict__ cosine, float* __restrict__ norm_a) {
    const int lane = threadIdx.x & 31;
    const int r = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
    if (r >= rows) return;
    const float* x = a + static_cast<long long>(r) * dim;
    const float* y = b + static_cast<long long>(r) * dim;
    float dot = 0.0f, xx = 0.0f, yy = 0.0f;
    if ((dim & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(x);
        const float4* y4 = reinterpret_cast<const float4*>(y);
        for (int j = lane; j < dim / 4; j += 32) {
            const float4 u = __ldg(x4 + j), v = __ldg(y4 + j);
            dot += u.x * v.x + u.y * v.y + u.z * v.z + u.w * v.w;
            xx += u.x * u.x + u.y * u.y + u.z * u.z + u.w * u.w;
            yy += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
        }
    } else {
        for (int j = lane; j < dim; j += 32) {
            const float u = __ldg(x + j), v = __ldg(y + j);
            dot += u * v;
            xx += u * u;
            yy += v * v;
        }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        dot += __shfl_xor_sync(0xffffffffu, dot, offset);
        xx += __shfl_xor_sync(0xffffffffu, xx, offset);
        yy += __shfl_xor_sync(0xffffffffu, yy, offset);
    }
    if (lane == 0) {
        const float nx = sqrtf(xx), ny = sqrtf(yy);
        norm_a[r] = nx;
        cosine[r] = dot / fmaxf(nx * ny, 1e-12f);
    }
}

void cosine_similarity_rows(int rows, int dim, const float* a, const float* b, float* cosine, float* norm_a) {
    if (rows <= 0) return;
    cosine_warp_per_row<<<(rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock>>>(rows, dim, a, b,
                                                                                           cosine, norm_a);
}
