// steps: parallelize, work_decomposition, algorithmic_change, shared_memory_tiling
// One block per row: each value becomes a 64-bit key (order-preserving float bits, then the column,
// so ties resolve by column and the order is total), the row is padded to a power of two with
// maximal keys and bitonic-sorted in shared memory, then values and columns are unpacked.
#include <cstdint>

constexpr int kMaxCols = 2048;
constexpr int kThreads = 256;

__device__ __forceinline__ uint32_t float_to_ordered(float v) {
    const uint32_t bits = __float_as_uint(v);
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ __forceinline__ float ordered_to_float(uint32_t u) {
    return __uint_as_float((u & 0x80000000u) ? (u ^ 0x80000000u) : ~u);
}

__global__ void bitonic_row(int cols, int padded, const float* __restrict__ values, float* __restrict__ sorted,
                            int* __restrict__ order) {
    __shared__ unsigned long long keys[kMaxCols];
    const long long row_base = static_cast<long long>(blockIdx.x) * cols;
    for (int i = threadIdx.x; i < padded; i += blockDim.x) {
        keys[i] = i < cols ? (static_cast<unsigned long long>(float_to_ordered(values[row_base + i])) << 32) |
                                 static_cast<unsigned int>(i)
                           : ~0ull;
    }
    __syncthreads();
    for (int k = 2; k <= padded; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < padded; i += blockDim.x) {
                const int partner = i ^ j;
                if (partner > i) {
                    const unsigned long long a = keys[i], b = keys[partner];
                    const bool ascending = (i & k) == 0;
                    if ((a > b) == ascending) {
                        keys[i] = b;
                        keys[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < cols; i += blockDim.x) {
        const unsigned long long key = keys[i];
        sorted[row_base + i] = ordered_to_float(static_cast<uint32_t>(key >> 32));
        order[row_base + i] = static_cast<int>(key & 0xffffffffu);
    }
}

void argsort_rows(int rows, int cols, const float* values, float* sorted, int* order) {
    if (rows <= 0 || cols <= 0) return;
    int padded = 1;
    while (padded < cols) padded <<= 1;
    const int threads = padded < kThreads ? (padded < 32 ? 32 : padded) : kThreads;
    bitonic_row<<<rows, threads>>>(cols, padded, values, sorted, order);
}
