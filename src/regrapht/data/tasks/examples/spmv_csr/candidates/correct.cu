// Warp per row: lanes stride over the row's nonzeros (coalesced), then a shuffle reduction.
__global__ void spmv_warp_per_row(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                  const float* __restrict__ values, const float* __restrict__ x, float* __restrict__ y) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32) sum += values[k] * __ldg(&x[col_idx[k]]);
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[warp] = sum;
}

extern "C" void spmv_csr(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx,
                         const float* values, const float* x, float* y) {
    if (rows <= 0) return;
    const int threads = 256;
    long long total = static_cast<long long>(rows) * 32;
    spmv_warp_per_row<<<static_cast<int>((total + threads - 1) / threads), threads>>>(rows, row_ptr, col_idx, values, x, y);
}
