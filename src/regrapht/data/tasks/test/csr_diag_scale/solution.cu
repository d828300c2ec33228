// steps: parallelize, work_decomposition
// One warp per row instead of one thread per row: lanes sweep a row's entries together, so the
// loads of values/col_idx and the stores are coalesced, and the long rows of the power-law
// distribution are shared by 32 lanes instead of stalling a single thread.

__global__ void csr_diag_scale_warp_per_row(int rows, const int* __restrict__ row_ptr,
                                            const int* __restrict__ col_idx, const float* __restrict__ values,
                                            const float* __restrict__ row_scale,
                                            const float* __restrict__ col_scale, float* __restrict__ scaled) {
    int warp = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    int begin = row_ptr[warp], end = row_ptr[warp + 1];
    float dr = row_scale[warp];
    for (int k = begin + lane; k < end; k += 32) scaled[k] = (dr * values[k]) * __ldg(col_scale + col_idx[k]);
}

void csr_diag_scale(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                    const float* row_scale, const float* col_scale, float* scaled) {
    if (rows <= 0) return;
    const int threads = 256, warps_per_block = threads / 32;
    int blocks = (rows + warps_per_block - 1) / warps_per_block;
    csr_diag_scale_warp_per_row<<<blocks, threads>>>(rows, row_ptr, col_idx, values, row_scale, col_scale, scaled);
}
