// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, vectorized_access, kernel_fusion
// Dequantization is fused into the tensor-core GEMM's shared-memory fill, so the weights cross HBM
// as int8 and never exist in fp16 in global memory. A block computes a 128 x 128 tile of Y with 8
// warps (2 x 4), each a 64 x 32 fp32 accumulator of 4 x 2 WMMA fragments. Per 32-deep slice, X's
// tile is copied with 16-byte cp.async into a double buffer, while each thread fetches one 16-byte
// chunk of 16 int8 weights into registers for the next slice, during the current slice's MMAs, then
// converts them (times the one group scale the slice lies in: 32 divides 128) to fp16 into the other
// buffer. Rows are padded by 16 bytes against bank conflicts; Wq's [N][K] rows are the column-major
// K x N operand. Shapes whose rows are not 16-byte aligned (K % 16 != 0) fill element by element.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32, LD = BK + 8, THREADS = 256, GROUP = 128;

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

// aligned path: A chunks (rows tid/4 and tid/4 + 64, 8 halves at (tid%4)*8) by cp.async
__device__ __forceinline__ void load_a(Tiles& s, int stage, int M, int K, int m0, int k0, const __half* __restrict__ X) {
    const int r = threadIdx.x >> 2, k8 = (threadIdx.x & 3) * 8;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int m = m0 + r + 64 * i;
        const bool ok = m < M && k0 + k8 < K;
        copy16(&s.a[stage][r + 64 * i][k8], ok ? X + (long long)m * K + k0 + k8 : X, ok);
    }
}

// aligned path: B chunk (row tid/2, 16 int8 at (tid%2)*16) into registers, with its scale
struct Pending {
    int4 q;
    float scale;
};

__device__ __forceinline__ Pending fetch_b(int N, int K, int n0, int k0, const signed char* __restrict__ Wq,
                                           const float* __restrict__ scales) {
    const int n = n0 + (threadIdx.x >> 1), k16 = (threadIdx.x & 1) * 16;
    Pending p;
    p.q = make_int4(0, 0, 0, 0);
    p.scale = 0.0f;
    if (n < N && k0 + k16 < K) {
        p.q = __ldg(reinterpret_cast<const int4*>(Wq + (long long)n * K + k0 + k16));
        p.scale = __ldg(scales + (long long)n * ((K + GROUP - 1) / GROUP) + k0 / GROUP);
    }
    return p;
}

__device__ __forceinline__ void store_b(Tiles& s, int stage, const Pending& p) {
    const int r = threadIdx.x >> 1, k16 = (threadIdx.x & 1) * 16;
    const int words[4] = {p.q.x, p.q.y, p.q.z, p.q.w};
    __half2 out[8];
#pragma unroll
    for (int wd = 0; wd < 4; ++wd) {
        const int v = words[wd];
        const float b0 = (float)(signed char)(v & 0xff), b1 = (float)(signed char)((v >> 8) & 0xff);
        const float b2 = (float)(signed char)((v >> 16) & 0xff), b3 = (float)(signed char)((v >> 24) & 0xff);
        out[2 * wd] = __floats2half2_rn(b0 * p.scale, b1 * p.scale);
        out[2 * wd + 1] = __floats2half2_rn(b2 * p.scale, b3 * p.scale);
    }
    uint4* dst = reinterpret_cast<uint4*>(&s.b[stage][r][k16]);
    dst[0] = *reinterpret_cast<const uint4*>(&out[0]);
    dst[1] = *reinterpret_cast<const uint4*>(&out[4]);
}

// unaligned path: both tiles element by element
__device__ void fill_any(Tiles& s, int stage, int M, int N, int K, int m0, int n0, int k0, const __half* __restrict__ X,
                         const signed char* __restrict__ Wq, const float* __restrict__ scales) {
    const int groups = (K + GROUP - 1) / GROUP;
    const __half zero = __float2half(0.0f);
    for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
        const int r = e / BK, k = e % BK, kk = k0 + k;
        s.a[stage][r][k] = m0 + r < M && kk < K ? X[(long long)(m0 + r) * K + kk] : zero;
        s.b[stage][r][k] = n0 + r < N && kk < K ? __float2half_rn((float)Wq[(long long)(n0 + r) * K + kk] *
                                                                  scales[(long long)(n0 + r) * groups + kk / GROUP])
                                                : zero;
    }
}

template <bool ALIGNED>
__global__ void __launch_bounds__(THREADS) w8a16_wmma(int M, int N, int K, const __half* __restrict__ X,
                                                     const signed char* __restrict__ Wq, const float* __restrict__ scales,
                                                     float* __restrict__ Y) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 2, wn = warp & 3;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int slices = (K + BK - 1) / BK;
    if (ALIGNED) {
        load_a(s, 0, M, K, m0, 0, X);
        copy_commit();
        store_b(s, 0, fetch_b(N, K, n0, 0, Wq, scales));
    } else {
        fill_any(s, 0, M, N, K, m0, n0, 0, X, Wq, scales);
    }
    for (int t = 0; t < slices; ++t) {
        const int stage = t & 1;
        const bool more = t + 1 < slices;
        Pending next;
        if (ALIGNED) {
            if (more) {
                load_a(s, stage ^ 1, M, K, m0, (t + 1) * BK, X);
                copy_commit();
                next = fetch_b(N, K, n0, (t + 1) * BK, Wq, scales);
                copy_wait<1>();
            } else {
                copy_wait<0>();
            }
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
        if (more) {  // the other stage was last read before the previous iteration's closing barrier
            if (ALIGNED)
                store_b(s, stage ^ 1, next);
            else
                fill_any(s, stage ^ 1, M, N, K, m0, n0, (t + 1) * BK, X, Wq, scales);
        }
        __syncthreads();
    }

    float* scratch = reinterpret_cast<float*>(raw) + warp * 256;  // the tiles are free now
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int col = n0 + wn * 32 + j * 16 + (lane & 15);
            for (int e = lane; e < 256; e += 32) {
                const int row = m0 + wm * 64 + i * 16 + (e >> 4);
                if (row < M && col < N) Y[(long long)row * N + col] = scratch[e];
            }
            __syncwarp();
        }
}

void w8a16_gemm(int M, int N, int K, const unsigned short* X, const signed char* Wq, const float* scales, float* Y) {
    if (M <= 0 || N <= 0) return;
    const dim3 grid((M + BM - 1) / BM, (N + BN - 1) / BN);
    const auto* xh = reinterpret_cast<const __half*>(X);
    if (K % 16 == 0)
        w8a16_wmma<true><<<grid, THREADS>>>(M, N, K, xh, Wq, scales, Y);
    else
        w8a16_wmma<false><<<grid, THREADS>>>(M, N, K, xh, Wq, scales, Y);
}
