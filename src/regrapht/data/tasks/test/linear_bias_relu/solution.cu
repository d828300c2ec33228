// steps: parallelize, shared_memory_tiling, register_tiling, memory_coalescing, bank_conflict_avoidance, loop_unrolling, kernel_fusion
// Classic register-blocked SGEMM, specialised to the "NT" layout of a linear layer (both X and W are
// K-contiguous). A 256-thread block computes a 128 x 128 tile of Y, each thread an 8 x 8 sub-tile
// held in registers (rows ty + 16*i, columns tx + 16*j, so shared reads are broadcast/conflict-free
// and the final stores are coalesced). K advances in slices of 8: X and W slices are read with
// consecutive threads on consecutive k and stored transposed in shared memory, padded so the
// transposing stores hit 32 distinct banks. Bounds are checked only while loading and storing, so
// odd sizes cost nothing inside the unrolled inner product. Bias and ReLU are fused in the epilogue.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define PAD 4

__global__ void __launch_bounds__(256) linear_bias_relu_tiled(int M, int N, int K, const float* __restrict__ X,
                                                              const float* __restrict__ W,
                                                              const float* __restrict__ bias, float* __restrict__ Y) {
    __shared__ float As[BK][BM + PAD];
    __shared__ float Bs[BK][BN + PAD];
    const int tid = threadIdx.x;
    const int tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        #pragma unroll
        for (int l = 0; l < (BM * BK) / 256; ++l) {
            int idx = tid + 256 * l;
            int r = idx / BK, c = idx % BK;
            int gk = k0 + c;
            int gm = m0 + r, gn = n0 + r;
            As[c][r] = (gm < M && gk < K) ? X[(long long)gm * K + gk] : 0.0f;
            Bs[c][r] = (gn < N && gk < K) ? W[(long long)gn * K + gk] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int p = 0; p < BK; ++p) {
            float a[TM], b[TN];
            #pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[p][ty + 16 * i];
            #pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[p][tx + 16 * j];
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    #pragma unroll
    for (int j = 0; j < TN; ++j) {
        int gn = n0 + tx + 16 * j;
        if (gn >= N) continue;
        float bj = bias[gn];
        #pragma unroll
        for (int i = 0; i < TM; ++i) {
            int gm = m0 + ty + 16 * i;
            if (gm < M) Y[(long long)gm * N + gn] = fmaxf(acc[i][j] + bj, 0.0f);
        }
    }
}

void linear_bias_relu(int M, int N, int K, const float* X, const float* W, const float* bias, float* Y) {
    if (M <= 0 || N <= 0) return;
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    linear_bias_relu_tiled<<<grid, 256>>>(M, N, K, X, W, bias, Y);
}
