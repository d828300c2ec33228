// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, kernel_fusion, vectorized_access
// A block computes a 128 x 64 tile of Y from the matching 64 gate and 64 up columns of W, so the
// gate and up accumulators of an output sit in the same warp: 8 warps (2 x 4), each 64 rows x
// (16 gate + 16 up) columns held in bf16 WMMA fragments with fp32 accumulation. 32-deep K slices
// of X and W stream into padded shared memory (rows offset by 16 bytes against bank conflicts)
// with 16-byte cp.async copies, double buffered so the next slice loads during the MMAs. The
// epilogue (biases, exact GELU, product) runs on the fragments through a per-warp shared scratch
// that reuses the tile buffers, so g and u never reach global memory.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 64, BK = 32;  // BN output columns = BN gate + BN up columns of W
constexpr int PAD = 8;                      // bf16 elements: 16 bytes
constexpr int A_LD = BK + PAD, B_LD = 2 * BN + PAD;
constexpr int THREADS = 256;

struct Tiles {
    __nv_bfloat16 a[2][BM][A_LD];
    __nv_bfloat16 b[2][BK][B_LD];
};

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const int bytes = valid ? 16 : 0;  // 0: zero-fill, nothing is read
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING)); }

// X rows m0.., columns k0..; W rows k0.., gate columns n0.. and up columns N + n0..
template <bool ALIGNED>
__device__ __forceinline__ void load_slice(Tiles& s, int stage, int M, int N, int K, int m0, int n0, int k0,
                                           const __nv_bfloat16* __restrict__ X, const __nv_bfloat16* __restrict__ W) {
    const long long ldw = 2LL * N;
    if (ALIGNED) {  // K % 8 == 0 and N % 8 == 0: every 8-element chunk is 16-byte aligned, all in or all out
        for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {
            const int r = c / (BK / 8), k8 = (c % (BK / 8)) * 8;
            const bool ok = m0 + r < M && k0 + k8 < K;
            copy16(&s.a[stage][r][k8], ok ? X + (long long)(m0 + r) * K + k0 + k8 : X, ok);
        }
        for (int c = threadIdx.x; c < BK * 2 * BN / 8; c += THREADS) {
            const int r = c / (2 * BN / 8), t8 = (c % (2 * BN / 8)) * 8;
            const int col = n0 + (t8 % BN);
            const bool ok = k0 + r < K && col < N;
            const long long at = (long long)(k0 + r) * ldw + (t8 < BN ? col : N + col);
            copy16(&s.b[stage][r][t8], ok ? W + at : W, ok);
        }
    } else {
        const __nv_bfloat16 zero = __float2bfloat16(0.0f);
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, k = e % BK;
            s.a[stage][r][k] = m0 + r < M && k0 + k < K ? X[(long long)(m0 + r) * K + k0 + k] : zero;
        }
        for (int e = threadIdx.x; e < BK * 2 * BN; e += THREADS) {
            const int r = e / (2 * BN), t = e % (2 * BN);
            const int col = n0 + (t % BN);
            s.b[stage][r][t] = k0 + r < K && col < N ? W[(long long)(k0 + r) * ldw + (t < BN ? col : N + col)] : zero;
        }
    }
}

template <bool ALIGNED>
__global__ void __launch_bounds__(THREADS, 2) geglu_wmma(int M, int N, int K, const __nv_bfloat16* __restrict__ X,
                                                         const __nv_bfloat16* __restrict__ W,
                                                         const float* __restrict__ bias, float* __restrict__ Y) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 2, wn = warp & 3;  // 2 x 4 warps: rows wm*64.., columns wn*16..
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> gate[4], up[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        wmma::fill_fragment(gate[i], 0.0f);
        wmma::fill_fragment(up[i], 0.0f);
    }
    const int slices = (K + BK - 1) / BK;
    load_slice<ALIGNED>(s, 0, M, N, K, m0, n0, 0, X, W);
    copy_commit();
    for (int t = 0; t < slices; ++t) {
        const int stage = t & 1;
        if (t + 1 < slices) {
            load_slice<ALIGNED>(s, stage ^ 1, M, N, K, m0, n0, (t + 1) * BK, X, W);
            copy_commit();
            copy_wait<1>();
        } else {
            copy_wait<0>();
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bg, bu;
            wmma::load_matrix_sync(bg, &s.b[stage][kk][wn * 16], B_LD);
            wmma::load_matrix_sync(bu, &s.b[stage][kk][BN + wn * 16], B_LD);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
                wmma::load_matrix_sync(a, &s.a[stage][wm * 64 + i * 16][kk], A_LD);
                wmma::mma_sync(gate[i], a, bg, gate[i]);
                wmma::mma_sync(up[i], a, bu, up[i]);
            }
        }
        __syncthreads();  // this stage is refilled two slices later
    }

    // epilogue: the tile buffers are free; each warp gets 2 x 16 x 16 floats of scratch
    float* gs = reinterpret_cast<float*>(raw) + warp * 512;
    float* us = gs + 256;
    const int col = n0 + wn * 16 + (lane & 15);
    const float bg = col < N ? bias[col] : 0.0f, bu = col < N ? bias[N + col] : 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        wmma::store_matrix_sync(gs, gate[i], 16, wmma::mem_row_major);
        wmma::store_matrix_sync(us, up[i], 16, wmma::mem_row_major);
        __syncwarp();
        const int row_base = m0 + wm * 64 + i * 16;
#pragma unroll
        for (int e = lane; e < 256; e += 32) {  // lane & 15 is e & 15: the column is fixed per lane
            const int row = row_base + (e >> 4);
            if (row < M && col < N) {
                const float g = gs[e] + bg, u = us[e] + bu;
                Y[(long long)row * N + col] = 0.5f * g * erfcf(-g * 0.70710678f) * u;
            }
        }
        __syncwarp();
    }
}

void geglu_proj_bf16(int M, int N, int K, const unsigned short* X, const unsigned short* W, const float* bias,
                     float* Y) {
    if (M <= 0 || N <= 0) return;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    const auto* x = reinterpret_cast<const __nv_bfloat16*>(X);
    const auto* w = reinterpret_cast<const __nv_bfloat16*>(W);
    if (K % 8 == 0 && N % 8 == 0)
        geglu_wmma<true><<<grid, THREADS>>>(M, N, K, x, w, bias, Y);
    else
        geglu_wmma<false><<<grid, THREADS>>>(M, N, K, x, w, bias, Y);
}
