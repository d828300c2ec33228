// steps: parallelize, algorithmic_change, library_primitive, work_decomposition, memory_coalescing, read_only_cache
// Transposition as a stable sort: the CSR entries are already in row-major order, so a stable LSD
// radix sort of the entry positions keyed by column (CUB, only the bits that column ids need) yields
// every column's entries in ascending row order, with no atomics and no per-column sorting.
// Row ids are expanded per entry by one warp per row (coalesced writes, long power-law rows spread
// over 32 lanes); rows and values are then gathered in sorted order (coalesced writes, read-only
// gathers), and col_ptr comes from the column boundaries of the sorted keys without a histogram or scan.

#include <cub/cub.cuh>

__global__ void expand_rows_warp(int rows, const int* __restrict__ row_ptr, int* __restrict__ row_of,
                                 int* __restrict__ order) {
    int r = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    int begin = row_ptr[r], end = row_ptr[r + 1];
    for (int k = begin + lane; k < end; k += 32) {
        row_of[k] = r;
        order[k] = k;
    }
}

__global__ void gather_sorted(int nnz, const int* __restrict__ perm, const int* __restrict__ row_of,
                              const float* __restrict__ values, int* __restrict__ row_idx,
                              float* __restrict__ values_t) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nnz) return;
    int k = perm[p];
    row_idx[p] = __ldg(row_of + k);
    values_t[p] = __ldg(values + k);
}

// Every column id c in [0, cols] is written by exactly one thread: the first entry of a column run
// writes the offsets of the (possibly empty) columns since the previous run; the last entry the tail.
__global__ void column_boundaries(int nnz, int cols, const int* __restrict__ sorted_cols, int* __restrict__ col_ptr) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nnz) return;
    int cur = sorted_cols[p];
    int prev = p > 0 ? sorted_cols[p - 1] : -1;
    for (int c = prev + 1; c <= cur; ++c) col_ptr[c] = p;
    if (p == nnz - 1)
        for (int c = cur + 1; c <= cols; ++c) col_ptr[c] = nnz;
}

struct CscWorkspace {
    void* temp = nullptr;
    size_t temp_bytes = 0;
    int* buf = nullptr;  // row_of, order_in, order_out, keys_out
    size_t buf_items = 0;
};
static CscWorkspace g_ws;

void csr_to_csc(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                int* col_ptr, int* row_idx, float* values_t) {
    if (nnz <= 0 || cols <= 0) {
        cudaMemset(col_ptr, 0, sizeof(int) * ((size_t)cols + 1));
        return;
    }
    if ((size_t)nnz > g_ws.buf_items) {
        if (g_ws.buf) cudaFree(g_ws.buf);
        cudaMalloc(&g_ws.buf, sizeof(int) * 4 * (size_t)nnz);
        g_ws.buf_items = nnz;
    }
    int* row_of = g_ws.buf;
    int* order_in = g_ws.buf + (size_t)nnz;
    int* order_out = g_ws.buf + 2 * (size_t)nnz;
    int* keys_out = g_ws.buf + 3 * (size_t)nnz;

    int end_bit = 1;
    while (end_bit < 31 && (1 << end_bit) < cols) ++end_bit;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, col_idx, keys_out, order_in, order_out, nnz, 0, end_bit);
    if (temp_bytes > g_ws.temp_bytes) {
        if (g_ws.temp) cudaFree(g_ws.temp);
        cudaMalloc(&g_ws.temp, temp_bytes);
        g_ws.temp_bytes = temp_bytes;
    }

    long long warps = (long long)rows * 32;
    expand_rows_warp<<<(unsigned)((warps + 255) / 256), 256>>>(rows, row_ptr, row_of, order_in);
    size_t bytes = g_ws.temp_bytes;
    cub::DeviceRadixSort::SortPairs(g_ws.temp, bytes, col_idx, keys_out, order_in, order_out, nnz, 0, end_bit);
    int blocks = (nnz + 255) / 256;
    gather_sorted<<<blocks, 256>>>(nnz, order_out, row_of, values, row_idx, values_t);
    column_boundaries<<<blocks, 256>>>(nnz, cols, keys_out, col_ptr);
}
