// steps: parallelize, work_decomposition, algorithmic_change, read_only_cache
// A block per source row u (the usual case): u's neighbour set goes into a shared-memory bitmap
// (one bit per vertex: 4 KB at the bench size), then each warp takes one of u's edges (u, v) at a
// time, its lanes read N(v) with coalesced loads (rows are contiguous, and col_idx fits in L2) and
// test each target's bit, and a warp reduction gives |N(u) ∩ N(v)|. Every edge costs deg(v) / 32
// coalesced steps instead of deg(u) dependent binary searches of the per-edge kernel below, which
// stays for graphs whose bitmap would not fit in shared memory: one thread per edge (its source row
// found by binary search over row_ptr), walking the shorter list and binary-searching the longer
// one, narrowing the search window as it goes (the lists are sorted).
#define JB_THREADS 256
constexpr int kMaxBitmapBytes = 96 * 1024;

__device__ __forceinline__ int row_of(const int* __restrict__ row_ptr, int vertices, int e) {
    int lo = 0, hi = vertices - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (__ldg(row_ptr + mid) <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

__device__ __forceinline__ int intersect(const int* __restrict__ col_idx, int a0, int a1, int b0, int b1) {
    if (a1 - a0 > b1 - b0) {  // make [a0, a1) the shorter list
        int t0 = a0, t1 = a1;
        a0 = b0;
        a1 = b1;
        b0 = t0;
        b1 = t1;
    }
    int shared = 0;
    int lo = b0;
    for (int a = a0; a < a1 && lo < b1; ++a) {
        const int key = __ldg(col_idx + a);
        int hi = b1;  // first position in [lo, b1) with value >= key
        while (lo < hi) {
            int mid = (lo + hi) >> 1;
            if (__ldg(col_idx + mid) < key) lo = mid + 1;
            else hi = mid;
        }
        if (lo < b1 && __ldg(col_idx + lo) == key) {
            ++shared;
            ++lo;
        }
    }
    return shared;
}

__global__ void jaccard_per_edge(int vertices, int edges, const int* __restrict__ row_ptr,
                                 const int* __restrict__ col_idx, int* __restrict__ common,
                                 float* __restrict__ jaccard) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= edges) return;
    const int u = row_of(row_ptr, vertices, e);
    const int v = __ldg(col_idx + e);
    const int u0 = __ldg(row_ptr + u), u1 = __ldg(row_ptr + u + 1);
    const int v0 = __ldg(row_ptr + v), v1 = __ldg(row_ptr + v + 1);
    const int shared = intersect(col_idx, u0, u1, v0, v1);
    common[e] = shared;
    jaccard[e] = static_cast<float>(shared) / static_cast<float>((u1 - u0) + (v1 - v0) - shared);
}

__global__ void __launch_bounds__(JB_THREADS) jaccard_row_bitmap(int vertices, const int* __restrict__ row_ptr,
                                                                  const int* __restrict__ col_idx,
                                                                  int* __restrict__ common, float* __restrict__ jaccard) {
    extern __shared__ unsigned bits[];  // bit w: w is a neighbour of the current row
    const int words = (vertices + 31) >> 5;
    for (int w = threadIdx.x; w < words; w += blockDim.x) bits[w] = 0u;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int u = blockIdx.x; u < vertices; u += gridDim.x) {
        const int u0 = __ldg(row_ptr + u), u1 = __ldg(row_ptr + u + 1);
        __syncthreads();  // the bitmap is clear (first row) or cleared (the previous row's last loop)
        for (int a = u0 + threadIdx.x; a < u1; a += blockDim.x) {
            const int w = __ldg(col_idx + a);
            atomicOr(&bits[w >> 5], 1u << (w & 31));
        }
        __syncthreads();
        const int du = u1 - u0;
        for (int e = u0 + warp; e < u1; e += nwarps) {
            const int v = __ldg(col_idx + e);
            const int v0 = __ldg(row_ptr + v), v1 = __ldg(row_ptr + v + 1);
            int shared = 0;
            for (int b = v0 + lane; b < v1; b += 32) {
                const int w = __ldg(col_idx + b);
                shared += (bits[w >> 5] >> (w & 31)) & 1u;
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) shared += __shfl_xor_sync(0xffffffffu, shared, o);
            if (lane == 0) {
                common[e] = shared;
                jaccard[e] = static_cast<float>(shared) / static_cast<float>(du + (v1 - v0) - shared);
            }
        }
        __syncthreads();  // every warp is done reading this row's bits
        for (int a = u0 + threadIdx.x; a < u1; a += blockDim.x) bits[__ldg(col_idx + a) >> 5] = 0u;
    }
}

void jaccard_edges(int vertices, int edges, const int* row_ptr, const int* col_idx, int* common, float* jaccard) {
    if (vertices <= 0 || edges <= 0) return;
    const size_t bitmap = (size_t)((vertices + 31) / 32) * sizeof(unsigned);
    if (bitmap <= (size_t)kMaxBitmapBytes) {
        static int sms = 0;
        static size_t opted = 48 * 1024;
        if (sms == 0) {
            int device = 0;
            cudaGetDevice(&device);
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        }
        if (bitmap > opted) {
            cudaFuncSetAttribute(jaccard_row_bitmap, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bitmap);
            opted = bitmap;
        }
        // blocks loop over rows: as many as fit at once (8 per SM at 256 threads), no more than rows
        const int blocks = vertices < sms * 8 ? vertices : sms * 8;
        jaccard_row_bitmap<<<blocks, JB_THREADS, bitmap>>>(vertices, row_ptr, col_idx, common, jaccard);
        return;
    }
    jaccard_per_edge<<<(edges + 255) / 256, 256>>>(vertices, edges, row_ptr, col_idx, common, jaccard);
}
