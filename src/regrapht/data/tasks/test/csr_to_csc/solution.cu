// steps: parallelize, algorithmic_change, library_primitive, work_decomposition, memory_coalescing, data_layout_transform, kernel_fusion
// Transposition as a stable sort: the CSR entries are already in row-major order, so a stable LSD
// radix sort keyed by column (CUB, only the bits that column ids need) yields every column's
// entries in ascending row order, with no atomics and no per-column sorting. Each entry's payload
// travels through the sort packed into one 64-bit word (row id high, the value's bits low) instead
// of sorting entry positions and gathering rows and values afterwards: the sort moves 4 more bytes
// per entry and pass, and the two random 4-byte gathers per entry (a 32-byte sector each) are gone.
// Row ids are packed per entry by one warp per row (coalesced writes, long power-law rows spread
// over 32 lanes); one pass over the sorted entries then unpacks rows and values (coalesced) and
// writes col_ptr from the column boundaries of the sorted keys, without a histogram or scan.

#include <cub/cub.cuh>

__global__ void pack_entries_warp(int rows, const int* __restrict__ row_ptr, const float* __restrict__ values,
                                  unsigned long long* __restrict__ packed) {
    int r = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    int begin = row_ptr[r], end = row_ptr[r + 1];
    for (int k = begin + lane; k < end; k += 32)
        packed[k] = (static_cast<unsigned long long>(static_cast<unsigned int>(r)) << 32) | __float_as_uint(values[k]);
}

// Every column id c in [0, cols] is written by exactly one thread: the first entry of a column run
// writes the offsets of the (possibly empty) columns since the previous run; the last entry the tail.
__global__ void unpack_and_bound(int nnz, int cols, const int* __restrict__ sorted_cols,
                                 const unsigned long long* __restrict__ packed, int* __restrict__ row_idx,
                                 float* __restrict__ values_t, int* __restrict__ col_ptr) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nnz) return;
    const unsigned long long e = packed[p];
    row_idx[p] = static_cast<int>(e >> 32);
    values_t[p] = __uint_as_float(static_cast<unsigned int>(e));
    int cur = sorted_cols[p];
    int prev = p > 0 ? sorted_cols[p - 1] : -1;
    for (int c = prev + 1; c <= cur; ++c) col_ptr[c] = p;
    if (p == nnz - 1)
        for (int c = cur + 1; c <= cols; ++c) col_ptr[c] = nnz;
}

struct CscWorkspace {
    void* temp = nullptr;
    size_t temp_bytes = 0;
    unsigned long long* packed = nullptr;  // packed_in, packed_out
    int* keys_out = nullptr;
    size_t items = 0;
};
static CscWorkspace g_ws;

void csr_to_csc(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
                int* col_ptr, int* row_idx, float* values_t) {
    if (nnz <= 0 || cols <= 0) {
        cudaMemset(col_ptr, 0, sizeof(int) * ((size_t)cols + 1));
        return;
    }
    if ((size_t)nnz > g_ws.items) {
        if (g_ws.packed) {
            cudaFree(g_ws.packed);
            cudaFree(g_ws.keys_out);
        }
        cudaMalloc(&g_ws.packed, sizeof(unsigned long long) * 2 * (size_t)nnz);
        cudaMalloc(&g_ws.keys_out, sizeof(int) * (size_t)nnz);
        g_ws.items = nnz;
    }
    unsigned long long* packed_in = g_ws.packed;
    unsigned long long* packed_out = g_ws.packed + (size_t)nnz;
    int* keys_out = g_ws.keys_out;

    int end_bit = 1;
    while (end_bit < 31 && (1 << end_bit) < cols) ++end_bit;
    size_t temp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, col_idx, keys_out, packed_in, packed_out, nnz, 0, end_bit);
    if (temp_bytes > g_ws.temp_bytes) {
        if (g_ws.temp) cudaFree(g_ws.temp);
        cudaMalloc(&g_ws.temp, temp_bytes);
        g_ws.temp_bytes = temp_bytes;
    }

    long long warps = (long long)rows * 32;
    pack_entries_warp<<<(unsigned)((warps + 255) / 256), 256>>>(rows, row_ptr, values, packed_in);
    size_t bytes = g_ws.temp_bytes;
    cub::DeviceRadixSort::SortPairs(g_ws.temp, bytes, col_idx, keys_out, packed_in, packed_out, nnz, 0, end_bit);
    int blocks = (nnz + 255) / 256;
    unpack_and_bound<<<blocks, 256>>>(nnz, cols, keys_out, packed_out, row_idx, values_t, col_ptr);
}
