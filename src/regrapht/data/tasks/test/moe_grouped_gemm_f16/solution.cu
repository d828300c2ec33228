// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, work_decomposition
// One launch for all experts: a block's y index is a 128-row tile of one expert's rows (found by a
// scan of the group sizes, so no tile straddles two experts and empty experts get none), its x
// index a 128-column tile of N. 8 warps (2 x 4) each hold 64 x 32 of the tile in fp16 WMMA
// fragments with fp32 accumulation; 32-deep K slices of X and W[g] stream into padded shared
// memory (16-byte row offsets against bank conflicts) with 16-byte cp.async copies, double
// buffered. Row tiles of one expert run side by side, so its weights come from L2 after the first.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32, PAD = 8;
constexpr int A_LD = BK + PAD, B_LD = BN + PAD;
constexpr int THREADS = 256;

struct Tiles {
    __half a[2][BM][A_LD];
    __half b[2][BK][B_LD];
};

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}

// rows r0 .. r_end-1 of X, columns k0..; rows k0.. of the expert's W, columns n0..
template <bool ALIGNED>
__device__ __forceinline__ void load_slice(Tiles& s, int stage, int r0, int r_end, int N, int K, int n0, int k0,
                                           const __half* __restrict__ X, const __half* __restrict__ Wg) {
    if (ALIGNED) {  // K % 8 == 0 and N % 8 == 0: 8-element chunks are 16-byte aligned, all in or all out
        for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {
            const int r = c / (BK / 8), k8 = (c % (BK / 8)) * 8;
            const bool ok = r0 + r < r_end && k0 + k8 < K;
            copy16(&s.a[stage][r][k8], ok ? X + (long long)(r0 + r) * K + k0 + k8 : X, ok);
        }
        for (int c = threadIdx.x; c < BK * BN / 8; c += THREADS) {
            const int r = c / (BN / 8), n8 = (c % (BN / 8)) * 8;
            const bool ok = k0 + r < K && n0 + n8 < N;
            copy16(&s.b[stage][r][n8], ok ? Wg + (long long)(k0 + r) * N + n0 + n8 : Wg, ok);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    } else {
        const __half zero = __float2half(0.0f);
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, k = e % BK;
            s.a[stage][r][k] = r0 + r < r_end && k0 + k < K ? X[(long long)(r0 + r) * K + k0 + k] : zero;
        }
        for (int e = threadIdx.x; e < BK * BN; e += THREADS) {
            const int r = e / BN, n = e % BN;
            s.b[stage][r][n] = k0 + r < K && n0 + n < N ? Wg[(long long)(k0 + r) * N + n0 + n] : zero;
        }
    }
}

template <bool ALIGNED>
__global__ void __launch_bounds__(THREADS, 2) grouped_wmma(int groups, int K, int N, const int* __restrict__ group_start,
                                                           const __half* __restrict__ X, const __half* __restrict__ W,
                                                           float* __restrict__ Y) {
    // which expert and which of its row tiles this block computes
    int g = 0, tile = blockIdx.y, rows = 0;
    for (; g < groups; ++g) {
        rows = __ldg(group_start + g + 1) - __ldg(group_start + g);
        const int tiles = (rows + BM - 1) / BM;
        if (tile < tiles) break;
        tile -= tiles;
    }
    if (g == groups) return;  // past the last tile: no barrier has been reached yet
    const int r0 = __ldg(group_start + g) + tile * BM, r_end = __ldg(group_start + g + 1);
    const int n0 = blockIdx.x * BN;
    const __half* Wg = W + (long long)g * K * N;

    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 2, wn = warp & 3;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int slices = (K + BK - 1) / BK;
    load_slice<ALIGNED>(s, 0, r0, r_end, N, K, n0, 0, X, Wg);
    for (int t = 0; t < slices; ++t) {
        const int stage = t & 1;
        if (t + 1 < slices) {
            load_slice<ALIGNED>(s, stage ^ 1, r0, r_end, N, K, n0, (t + 1) * BK, X, Wg);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &s.b[stage][kk][wn * 32 + j * 16], B_LD);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::load_matrix_sync(a, &s.a[stage][wm * 64 + i * 16][kk], A_LD);
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
            }
        }
        __syncthreads();
    }

    // out through a per-warp 16 x 16 scratch in the (now free) tile buffers, rows and columns checked
    float* scratch = reinterpret_cast<float*>(raw) + warp * 256;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int col = n0 + wn * 32 + j * 16 + (lane & 15);
#pragma unroll
            for (int e = lane; e < 256; e += 32) {
                const int row = r0 + wm * 64 + i * 16 + (e >> 4);
                if (row < r_end && col < N) Y[(long long)row * N + col] = scratch[e];
            }
            __syncwarp();
        }
    }
}

void moe_grouped_gemm_f16(int tokens, int groups, int K, int N, const int* group_start, const unsigned short* X,
                          const unsigned short* W, float* Y) {
    if (tokens <= 0 || N <= 0 || groups <= 0) return;
    // at most ceil(tokens / BM) + groups row tiles; blocks past the real count return at once
    const dim3 grid((N + BN - 1) / BN, (tokens + BM - 1) / BM + groups);
    const auto* x = reinterpret_cast<const __half*>(X);
    const auto* w = reinterpret_cast<const __half*>(W);
    if (K % 8 == 0 && N % 8 == 0)
        grouped_wmma<true><<<grid, THREADS>>>(groups, K, N, group_start, x, w, Y);
    else
        grouped_wmma<false><<<grid, THREADS>>>(groups, K, N, group_start, x, w, Y);
}
