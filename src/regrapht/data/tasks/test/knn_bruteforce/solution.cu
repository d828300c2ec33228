// steps: parallelize, work_decomposition, shared_memory_tiling, data_layout_transform, register_tiling, loop_unrolling, warp_divergence_elimination
// Two kernels. (1) The reference set is split into S chunks so that queries x chunks fill the GPU even
// when there are few queries; a block of 128 queries streams its chunk through shared memory in
// tiles of 256 references, transposed to SoA so every thread reads the same broadcast word. Each
// thread keeps its running top-8 in registers (fully unrolled, branch-free compare-exchange
// insertion, entered only when a candidate beats the current 8th). (2) A merge kernel folds the S
// partial top-8 lists of every query. With a single chunk the first kernel writes the answer directly.

#define KNN_K 8
#define MAXDIM 8
#define QPB 128
#define RTILE 256

__device__ __forceinline__ void knn_insert(float (&bd)[KNN_K], int (&bi)[KNN_K], float d2, int j) {
    if (!(d2 < bd[KNN_K - 1])) return;
    bd[KNN_K - 1] = d2;
    bi[KNN_K - 1] = j;
    #pragma unroll
    for (int t = KNN_K - 1; t > 0; --t) {
        bool sw = bd[t] < bd[t - 1];
        float a = bd[t], b = bd[t - 1];
        int ia = bi[t], ib = bi[t - 1];
        bd[t - 1] = sw ? a : b;
        bd[t] = sw ? b : a;
        bi[t - 1] = sw ? ia : ib;
        bi[t] = sw ? ib : ia;
    }
}

__global__ void __launch_bounds__(QPB) knn_partial(int nq, int nref, int dims, int chunk, const float* __restrict__ queries,
                                                   const float* __restrict__ refs, int* __restrict__ part_i,
                                                   float* __restrict__ part_d) {
    __shared__ float s_ref[MAXDIM][RTILE];
    const int q = blockIdx.x * QPB + threadIdx.x;
    const int split = blockIdx.y;
    const int begin = split * chunk;
    const int end = min(nref, begin + chunk);
    float qv[MAXDIM];
    #pragma unroll
    for (int d = 0; d < MAXDIM; ++d) qv[d] = (q < nq && d < dims) ? queries[(long long)q * dims + d] : 0.0f;
    float bd[KNN_K];
    int bi[KNN_K];
    #pragma unroll
    for (int t = 0; t < KNN_K; ++t) {
        bd[t] = INFINITY;
        bi[t] = -1;
    }
    for (int t0 = begin; t0 < end; t0 += RTILE) {
        const int cnt = min(RTILE, end - t0);
        __syncthreads();
        for (int e = threadIdx.x; e < cnt * dims; e += QPB) {
            int k = e / dims, d = e - k * dims;
            s_ref[d][k] = refs[(long long)t0 * dims + e];
        }
        __syncthreads();
        #pragma unroll 4
        for (int k = 0; k < cnt; ++k) {
            float d2 = 0.0f;
            #pragma unroll
            for (int d = 0; d < MAXDIM; ++d) {
                if (d < dims) {
                    float diff = s_ref[d][k] - qv[d];
                    d2 = fmaf(diff, diff, d2);
                }
            }
            knn_insert(bd, bi, d2, t0 + k);
        }
    }
    if (q >= nq) return;
    long long out = ((long long)split * nq + q) * KNN_K;
    #pragma unroll
    for (int t = 0; t < KNN_K; ++t) {
        part_d[out + t] = bd[t];
        part_i[out + t] = bi[t];
    }
}

__global__ void knn_merge(int nq, int splits, const int* __restrict__ part_i, const float* __restrict__ part_d,
                          int* __restrict__ knn_idx, float* __restrict__ knn_dist) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float bd[KNN_K];
    int bi[KNN_K];
    #pragma unroll
    for (int t = 0; t < KNN_K; ++t) {
        bd[t] = INFINITY;
        bi[t] = -1;
    }
    for (int s = 0; s < splits; ++s) {
        long long at = ((long long)s * nq + q) * KNN_K;
        #pragma unroll
        for (int t = 0; t < KNN_K; ++t) knn_insert(bd, bi, part_d[at + t], part_i[at + t]);
    }
    #pragma unroll
    for (int t = 0; t < KNN_K; ++t) {
        knn_idx[(long long)q * KNN_K + t] = bi[t];
        knn_dist[(long long)q * KNN_K + t] = bd[t];
    }
}

static float* g_part_d = nullptr;
static int* g_part_i = nullptr;
static size_t g_part_cap = 0;

void knn_bruteforce(int nq, int nref, int dims, const float* queries, const float* refs, int* knn_idx,
                    float* knn_dist) {
    if (nq <= 0 || nref <= 0) return;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int qblocks = (nq + QPB - 1) / QPB;
    int splits = (8 * sms + qblocks - 1) / qblocks;
    int max_splits = nref / 512 > 1 ? nref / 512 : 1;
    if (splits > max_splits) splits = max_splits;
    if (splits < 1) splits = 1;
    int chunk = (nref + splits - 1) / splits;
    dim3 grid(qblocks, splits);
    if (splits == 1) {
        knn_partial<<<grid, QPB>>>(nq, nref, dims, chunk, queries, refs, knn_idx, knn_dist);
        return;
    }
    size_t need = (size_t)splits * nq * KNN_K;
    if (need > g_part_cap) {
        if (g_part_d) cudaFree(g_part_d);
        if (g_part_i) cudaFree(g_part_i);
        cudaMalloc(&g_part_d, need * sizeof(float));
        cudaMalloc(&g_part_i, need * sizeof(int));
        g_part_cap = need;
    }
    knn_partial<<<grid, QPB>>>(nq, nref, dims, chunk, queries, refs, g_part_i, g_part_d);
    knn_merge<<<(nq + 127) / 128, 128>>>(nq, splits, g_part_i, g_part_d, knn_idx, knn_dist);
}
