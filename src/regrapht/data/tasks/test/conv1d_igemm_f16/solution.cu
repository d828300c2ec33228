// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, vectorized_access, kernel_fusion
// The convolution is run as a GEMM (M = batch*Lout rows, N = Cout, K*Cin deep) without an im2col
// copy: with channels-last x, the K*Cin inputs of output (b, t) are one contiguous run starting at
// x[b][t][0], so a tile row's address is computed once per thread and its 16-byte chunks stream
// straight into shared memory (rows overlap in memory; L2 serves the overlap). A block computes a
// 128 x 128 tile of y with 8 warps (2 x 4), each a 64 x 32 fp32 accumulator of 4 x 2 WMMA fragments
// (fp16 inputs, fp32 accumulation). The filters w[co][k][ci] are the K x N operand in column-major
// order as they lie. 32-deep slices are double buffered with cp.async in padded rows (16 bytes per
// row against bank conflicts), and the bias is added in the epilogue. When Cin is not a multiple of
// 8 (rows not 16-byte aligned) the slices are filled element by element.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32, LD = BK + 8, THREADS = 256;

struct Tiles {
    __half a[2][BM][LD];
    __half b[2][BN][LD];
};

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING)); }

struct Rows {  // the two A rows and two B rows this thread copies 16-byte chunks of, and the chunk column
    const __half* a[2];
    const __half* b[2];
    int k8;
};

template <bool ALIGNED>
__device__ __forceinline__ void load_slice(Tiles& s, int stage, const Rows& rows, int k0, int span, int M, int N,
                                           int Lout, int Lin, int Cin, int m0, int n0, const __half* __restrict__ x,
                                           const __half* __restrict__ w) {
    if (ALIGNED) {  // span % 8 == 0: a chunk is all inside the row or all past it
        const int r = threadIdx.x >> 2;
        const bool kin = k0 + rows.k8 < span;
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const bool oka = kin && rows.a[i] != nullptr, okb = kin && rows.b[i] != nullptr;
            copy16(&s.a[stage][r + 64 * i][rows.k8], oka ? rows.a[i] + k0 + rows.k8 : x, oka);
            copy16(&s.b[stage][r + 64 * i][rows.k8], okb ? rows.b[i] + k0 + rows.k8 : w, okb);
        }
    } else {
        const __half zero = __float2half(0.0f);
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, k = e % BK, m = m0 + r, n = n0 + r;
            const bool kin = k0 + k < span;
            s.a[stage][r][k] = kin && m < M ? x[((long long)(m / Lout) * Lin + m % Lout) * Cin + k0 + k] : zero;
            s.b[stage][r][k] = kin && n < N ? w[(long long)n * span + k0 + k] : zero;
        }
    }
}

template <bool ALIGNED>
__global__ void __launch_bounds__(THREADS) conv1d_wmma(int batch, int Lout, int Cin, int Cout, int K,
                                                      const __half* __restrict__ x, const __half* __restrict__ w,
                                                      const float* __restrict__ bias, float* __restrict__ y) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    const int M = batch * Lout, N = Cout, span = K * Cin, Lin = Lout + K - 1;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 2, wn = warp & 3;

    Rows rows;
    rows.k8 = (threadIdx.x & 3) * 8;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int m = m0 + (threadIdx.x >> 2) + 64 * i, n = n0 + (threadIdx.x >> 2) + 64 * i;
        rows.a[i] = m < M ? x + ((long long)(m / Lout) * Lin + m % Lout) * Cin : nullptr;
        rows.b[i] = n < N ? w + (long long)n * span : nullptr;
    }

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int slices = (span + BK - 1) / BK;
    load_slice<ALIGNED>(s, 0, rows, 0, span, M, N, Lout, Lin, Cin, m0, n0, x, w);
    copy_commit();
    for (int t = 0; t < slices; ++t) {
        const int stage = t & 1;
        if (t + 1 < slices) {
            load_slice<ALIGNED>(s, stage ^ 1, rows, (t + 1) * BK, span, M, N, Lout, Lin, Cin, m0, n0, x, w);
            copy_commit();
            copy_wait<1>();
        } else {
            copy_wait<0>();
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> bf[2];
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(bf[j], &s.b[stage][wn * 32 + j * 16][kk], LD);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af;
                wmma::load_matrix_sync(af, &s.a[stage][wm * 64 + i * 16][kk], LD);
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], af, bf[j], acc[i][j]);
            }
        }
        __syncthreads();  // this stage is refilled by the next iteration's copies
    }

    float* scratch = reinterpret_cast<float*>(raw) + warp * 256;  // the tiles are free now
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int col = n0 + wn * 32 + j * 16 + (lane & 15);
            const float b = col < N ? __ldg(bias + col) : 0.0f;
            for (int e = lane; e < 256; e += 32) {
                const int row = m0 + wm * 64 + i * 16 + (e >> 4);
                if (row < M && col < N) y[(long long)row * N + col] = scratch[e] + b;
            }
            __syncwarp();
        }
}

void conv1d_igemm_f16(int batch, int Lout, int Cin, int Cout, int K, const unsigned short* x, const unsigned short* w,
                      const float* bias, float* y) {
    const int M = batch * Lout;
    if (M <= 0 || Cout <= 0) return;
    const dim3 grid((M + BM - 1) / BM, (Cout + BN - 1) / BN);
    const auto* xh = reinterpret_cast<const __half*>(x);
    const auto* wh = reinterpret_cast<const __half*>(w);
    if (Cin % 8 == 0)
        conv1d_wmma<true><<<grid, THREADS>>>(batch, Lout, Cin, Cout, K, xh, wh, bias, y);
    else
        conv1d_wmma<false><<<grid, THREADS>>>(batch, Lout, Cin, Cout, K, xh, wh, bias, y);
}
