// steps: parallelize, algorithmic_change, kernel_fusion, shared_memory_tiling, register_tiling, warp_shuffle_reduction, bank_conflict_avoidance, fast_math_intrinsics, work_decomposition
// Flash-attention style single pass in fp32 CUDA cores: a block owns 16 query rows of one head
// (4 warps x 4 queries); K and V stream through shared memory in tiles of 32 keys. Each lane scores
// one key of the tile against the warp's 4 queries (K rows padded to D+1 floats: conflict-free),
// the online softmax keeps a running max and denominator per query (warp shuffles for the tile max
// and sum, exp2 with log2(e) folded into the scale), and the P*V product is accumulated in registers
// with lanes owning head dimensions. Tiles entirely above the causal diagonal are skipped, and the
// heaviest query blocks (last rows) are launched first to balance the triangular workload.

#define MAXD 128
#define KT 32
#define WARPS 4
#define QPW 4
#define QPB (WARPS * QPW)
#define DPL (MAXD / 32)

__global__ void __launch_bounds__(WARPS * 32) causal_attention_flash(int batch, int L, int D, float scale_log2,
                                                                    const float* __restrict__ Q,
                                                                    const float* __restrict__ K,
                                                                    const float* __restrict__ V,
                                                                    float* __restrict__ O) {
    __shared__ float Ks[KT][MAXD + 1];
    __shared__ float Vs[KT][MAXD];
    __shared__ float Qs[QPB][MAXD];
    const int nqb = (L + QPB - 1) / QPB;
    const int qb = nqb - 1 - (int)(blockIdx.x % nqb);
    const int b = (int)(blockIdx.x / nqb);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long base = (long long)b * L * D;
    const int q0 = qb * QPB;

    for (int idx = threadIdx.x; idx < QPB * D; idx += blockDim.x) {
        int r = idx / D, d = idx - r * D;
        int qi = q0 + r;
        Qs[r][d] = qi < L ? Q[base + (long long)qi * D + d] : 0.0f;
    }

    float m[QPW], l[QPW], acc[QPW][DPL];
    #pragma unroll
    for (int q = 0; q < QPW; ++q) {
        m[q] = -INFINITY;
        l[q] = 0.0f;
        #pragma unroll
        for (int t = 0; t < DPL; ++t) acc[q][t] = 0.0f;
    }
    const int wq0 = q0 + warp * QPW;                 // first query of this warp
    const int qlast = min(L - 1, q0 + QPB - 1);      // last query of the block

    for (int j0 = 0; j0 <= qlast; j0 += KT) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < KT * D; idx += blockDim.x) {
            int r = idx / D, d = idx - r * D;
            int kj = j0 + r;
            bool ok = kj < L;
            Ks[r][d] = ok ? K[base + (long long)kj * D + d] : 0.0f;
            Vs[r][d] = ok ? V[base + (long long)kj * D + d] : 0.0f;
        }
        __syncthreads();
        if (j0 > wq0 + QPW - 1) continue;  // whole tile above the diagonal for this warp

        float s[QPW];
        #pragma unroll
        for (int q = 0; q < QPW; ++q) s[q] = 0.0f;
        for (int d = 0; d < D; ++d) {
            float kv = Ks[lane][d];
            #pragma unroll
            for (int q = 0; q < QPW; ++q) s[q] = fmaf(Qs[warp * QPW + q][d], kv, s[q]);
        }
        const int key = j0 + lane;
        float p[QPW];
        #pragma unroll
        for (int q = 0; q < QPW; ++q) {
            int qi = wq0 + q;
            float sc = (key <= qi && key < L) ? s[q] * scale_log2 : -INFINITY;
            float tmax = sc;
            #pragma unroll
            for (int o = 16; o > 0; o >>= 1) tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, o));
            float mnew = fmaxf(m[q], tmax);
            // The first tile always holds key 0 <= qi, so mnew is finite from then on.
            p[q] = exp2f(sc - mnew);
            float corr = exp2f(m[q] - mnew);
            float psum = p[q];
            #pragma unroll
            for (int o = 16; o > 0; o >>= 1) psum += __shfl_xor_sync(0xffffffffu, psum, o);
            l[q] = l[q] * corr + psum;
            m[q] = mnew;
            #pragma unroll
            for (int t = 0; t < DPL; ++t) acc[q][t] *= corr;
        }
        const int kmax = min(KT, L - j0);
        for (int k = 0; k < kmax; ++k) {
            float vk[DPL];
            #pragma unroll
            for (int t = 0; t < DPL; ++t) {
                int d = lane + 32 * t;
                vk[t] = d < D ? Vs[k][d] : 0.0f;
            }
            #pragma unroll
            for (int q = 0; q < QPW; ++q) {
                float pk = __shfl_sync(0xffffffffu, p[q], k);
                #pragma unroll
                for (int t = 0; t < DPL; ++t) acc[q][t] = fmaf(pk, vk[t], acc[q][t]);
            }
        }
    }

    #pragma unroll
    for (int q = 0; q < QPW; ++q) {
        int qi = wq0 + q;
        if (qi >= L) continue;
        float inv = 1.0f / l[q];
        #pragma unroll
        for (int t = 0; t < DPL; ++t) {
            int d = lane + 32 * t;
            if (d < D) O[base + (long long)qi * D + d] = acc[q][t] * inv;
        }
    }
}

void causal_attention(int batch, int L, int D, const float* Q, const float* K, const float* V, float* O) {
    if (batch <= 0 || L <= 0 || D <= 0) return;
    const float log2e = 1.4426950408889634f;
    float scale_log2 = log2e / sqrtf((float)D);
    long long blocks = (long long)batch * ((L + QPB - 1) / QPB);
    causal_attention_flash<<<(unsigned)blocks, WARPS * 32>>>(batch, L, D, scale_log2, Q, K, V, O);
}
