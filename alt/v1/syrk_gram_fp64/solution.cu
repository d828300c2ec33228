// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, work_decomposition, memory_coalescing
// FP64 tensor cores (DMMA, mma.sync m16n8k8 f64, sm_90) over the lower triangle only: a block per
// 64 x 64 tile (I, J) with J <= I, enumerated row by row, so the upper triangle needs no second pass.
// 16-deep k slices of the I rows and the J rows of A stream through a 3-stage ring of shared
// buffers with cp.async (consecutive threads on consecutive 16-byte pieces of a row), two slices in
// flight while one is multiplied. A DMMA reads its A operand A[i][p] and its B operand A[j][p] with
// row = lane / 4 (+ 8), column = lane % 4 (+ 4); rows of 16 doubles would put four rows on one bank, so the
// column is XORed with 4 (row % 4), which keeps 16-byte pieces whole and spreads the 16 reads of a
// half-warp over distinct banks. 48 KiB of shared memory a block lets 4 blocks share an SM: at
// n = 2048 the 528 tiles are one full wave on 132 SMs. Each element of the
// triangle is written twice, as C[i][j] (16-byte pairs where n is even) and C[j][i]; a diagonal
// tile writes only its own lower half, so no address is written twice.
#include <cstdint>

// This variant: 2 warps of 32 x 64, each 2 x 8 DMMA tiles of 16 x 8 x 8: a quarter of the MMA
// instructions of the 8 x 8 x 4 shape for the same work; shared memory alone holds an SM to 4 blocks.
constexpr int CFG_WARPS_M = 2, CFG_WARPS_N = 1, CFG_MIN_BLOCKS = 4;

#define BM 64
#define BK 16
#define STAGES 3

constexpr int THREADS = 32 * CFG_WARPS_M * CFG_WARPS_N;
constexpr int MI = BM / (16 * CFG_WARPS_M), NI = BM / (8 * CFG_WARPS_N);  // 16 x 8 DMMA tiles per warp

// c (16 x 8) += a (16 x 8) * b (8 x 8): a = A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4],
// b = B[t][g], B[t + 4][g], c = C[g][2 t], C[g][2 t + 1], C[g + 8][2 t], C[g + 8][2 t + 1]
// (g = lane / 4, t = lane % 4)
__device__ __forceinline__ void mma_sync(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {  // invalid: zero-fill, no read
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy8(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 8 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2)); }

// rows r0.. of A, columns p0..p0+15, zero outside; element (r, c) of the slice sits at
// r * BK + (c ^ 4 (r % 4)): the XOR moves whole 4-column groups and never splits a 16-byte pair
template <bool PAIRS>
__device__ __forceinline__ void load_rows(double* s, int n, int k, int r0, int p0, const double* __restrict__ A) {
    if (PAIRS) {  // k even and A 16-byte aligned: a pair is all in or all out
#pragma unroll
        for (int c = threadIdx.x; c < BM * BK / 2; c += THREADS) {
            const int r = c / (BK / 2), p = (c % (BK / 2)) * 2;
            const bool ok = r0 + r < n && p0 + p < k;
            copy16(&s[r * BK + (p ^ ((r & 3) << 2))], ok ? A + (long long)(r0 + r) * k + p0 + p : A, ok);
        }
    } else {
#pragma unroll 4
        for (int c = threadIdx.x; c < BM * BK; c += THREADS) {
            const int r = c / BK, p = c % BK;
            const bool ok = r0 + r < n && p0 + p < k;
            copy8(&s[r * BK + (p ^ ((r & 3) << 2))], ok ? A + (long long)(r0 + r) * k + p0 + p : A, ok);
        }
    }
}

template <bool PAIRS>
__global__ void __launch_bounds__(THREADS, CFG_MIN_BLOCKS)
    gram_dmma(int n, int k, const double* __restrict__ A, double* __restrict__ C) {
    __shared__ __align__(16) double As[STAGES][BM * BK];
    __shared__ __align__(16) double Bs[STAGES][BM * BK];
    const long long t = blockIdx.x;
    int bi = (int)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while ((long long)(bi + 1) * (bi + 2) / 2 <= t) ++bi;
    while ((long long)bi * (bi + 1) / 2 > t) --bi;
    const int bj = (int)(t - (long long)bi * (bi + 1) / 2);
    const int i0 = bi * BM, j0 = bj * BM;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = (warp / CFG_WARPS_N) * MI * 16, wn = (warp % CFG_WARPS_N) * NI * 8;
    const int fr = lane >> 2, fc = lane & 3;  // fragment row and column of this lane
    const int key = (fr & 3) << 2;            // the swizzle of its rows: wm + 16 mi + 8 h + fr = fr (mod 4)

    double acc[MI][NI][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0;

    const int steps = (k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps) {
            load_rows<PAIRS>(As[s], n, k, i0, s * BK, A);
            load_rows<PAIRS>(Bs[s], n, k, j0, s * BK, A);
        }
        copy_commit();  // empty groups keep the count uniform
    }
    for (int s = 0; s < steps; ++s) {
        copy_wait();
        __syncthreads();  // slice s is in; every warp is done with slice s - 1, whose stage is refilled now
        const int next = s + STAGES - 1;
        if (next < steps) {
            load_rows<PAIRS>(As[next % STAGES], n, k, i0, next * BK, A);
            load_rows<PAIRS>(Bs[next % STAGES], n, k, j0, next * BK, A);
        }
        copy_commit();
        const int st = s % STAGES;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            double a[MI][4];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int e = 0; e < 4; ++e)  // row + 8 (e % 2), column + 4 (e / 2)
                    a[mi][e] = As[st][(wm + mi * 16 + (e & 1) * 8 + fr) * BK + ((kk + (e >> 1) * 4 + fc) ^ key)];
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                double b[2];  // column + 4 e
#pragma unroll
                for (int e = 0; e < 2; ++e) b[e] = Bs[st][(wn + ni * 8 + fr) * BK + ((kk + e * 4 + fc) ^ key)];
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) mma_sync(acc[mi][ni], a[mi], b);
            }
        }
    }
    // accumulator 2 h + e of tile (mi, ni): row i0 + wm + 16 mi + 8 h + lane / 4,
    // column j0 + wn + 8 ni + 2 (lane % 4) + e
    const bool diagonal = bi == bj;
    const bool pairs_out = (n % 2) == 0 && (reinterpret_cast<uintptr_t>(C) & 15) == 0;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i = i0 + wm + mi * 16 + h * 8 + fr;
            if (i >= n) continue;
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                const int j = j0 + wn + ni * 8 + fc * 2;
                const double v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];
                const bool in0 = j < n && (!diagonal || j <= i), in1 = j + 1 < n && (!diagonal || j + 1 <= i);
                if (pairs_out && in0 && in1) {
                    *reinterpret_cast<double2*>(C + (long long)i * n + j) = make_double2(v0, v1);
                } else {
                    if (in0) C[(long long)i * n + j] = v0;
                    if (in1) C[(long long)i * n + j + 1] = v1;
                }
                // the mirror: 8 lanes of a quad column write 8 consecutive doubles of a row of C
                if (in0 && j != i) C[(long long)j * n + i] = v0;
                if (in1 && j + 1 != i) C[(long long)(j + 1) * n + i] = v1;
            }
        }
}

void syrk_gram_fp64(int n, int k, const double* A, double* C) {
    if (n <= 0) return;
    const long long tiles = (n + BM - 1) / BM;
    const unsigned blocks = (unsigned)(tiles * (tiles + 1) / 2);
    if (k % 2 == 0 && (reinterpret_cast<uintptr_t>(A) & 15) == 0)
        gram_dmma<true><<<blocks, THREADS>>>(n, k, A, C);
    else
        gram_dmma<false><<<blocks, THREADS>>>(n, k, A, C);
}
