// steps: parallelize, work_decomposition, memory_coalescing, warp_shuffle_reduction, read_only_cache
// One warp per sparse row: the row's U vector is held in registers (lane-strided), lanes read each
// gathered V row contiguously (coalesced, through the read-only path), and the dot product is finished
// with a butterfly shuffle reduction. Power-law rows are shared by 32 lanes instead of one thread.

#define TPB 256
#define REG_SLOTS 4  // U kept in registers for dim <= 128

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void __launch_bounds__(TPB) sddmm_warp_per_row(int rows, int dim, const int* __restrict__ row_ptr,
                                                          const int* __restrict__ col_idx,
                                                          const float* __restrict__ values,
                                                          const float* __restrict__ U, const float* __restrict__ V,
                                                          float* __restrict__ out) {
    int r = (int)(((long long)blockIdx.x * TPB + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* u = U + (long long)r * dim;
    int begin = row_ptr[r], end = row_ptr[r + 1];
    if (dim <= 32 * REG_SLOTS) {
        float ureg[REG_SLOTS];
        #pragma unroll
        for (int s = 0; s < REG_SLOTS; ++s) {
            int d = lane + 32 * s;
            ureg[s] = d < dim ? u[d] : 0.0f;
        }
        for (int k = begin; k < end; ++k) {
            const float* v = V + (long long)__ldg(col_idx + k) * dim;
            float part = 0.0f;
            #pragma unroll
            for (int s = 0; s < REG_SLOTS; ++s) {
                int d = lane + 32 * s;
                if (d < dim) part += ureg[s] * __ldg(v + d);
            }
            float dot = warp_sum(part);
            if (lane == 0) out[k] = __ldg(values + k) * dot;
        }
    } else {
        for (int k = begin; k < end; ++k) {
            const float* v = V + (long long)__ldg(col_idx + k) * dim;
            float part = 0.0f;
            for (int d = lane; d < dim; d += 32) part += __ldg(u + d) * __ldg(v + d);
            float dot = warp_sum(part);
            if (lane == 0) out[k] = __ldg(values + k) * dot;
        }
    }
}

void sddmm_csr(int rows, int cols, int nnz, int dim, const int* row_ptr, const int* col_idx, const float* values,
               const float* U, const float* V, float* out) {
    if (rows <= 0) return;
    long long threads = (long long)rows * 32;
    sddmm_warp_per_row<<<(unsigned)((threads + TPB - 1) / TPB), TPB>>>(rows, dim, row_ptr, col_idx, values, U, V, out);
}
