// steps: tensor_core_mma, mixed_precision, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, kernel_fusion, split_k_decomposition, warp_shuffle_reduction
// Muon's recipe: every GEMM runs on bf16 tensor cores (WMMA, fp32 accumulation) with X kept in bf16
// between phases, and each phase's elementwise work is fused into a GEMM epilogue, so a step is
// three GEMM launches: A = X X^T (into A in fp32, then rounded to bf16), B = c A A + b A (A is
// symmetric, so its rows serve as the column-major right operand; the epilogue adds b A from the
// fp32 copy and writes B in bf16), and X' = a X + B X (the epilogue reads X, writes X' in bf16, and
// in fp32 into the output on the last step). One GEMM kernel, templated on the phase: 64 x 64 tiles,
// 4 warps of 32 x 32, 32-deep slices double buffered with 16-byte cp.async in padded rows. X X^T has
// few output tiles (64 at the bench's m = 512) but is n deep, so it is split along K over ~2 blocks
// per SM, each adding its partial tile with fp32 atomics (then one short pass rounds A to bf16). The
// Frobenius norm is a warp-shuffle block reduction.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;
using bf16 = __nv_bfloat16;

constexpr float NS_A = 3.4445f, NS_B = -4.7750f, NS_C = 2.0315f;
constexpr int BM = 64, BN = 64, BK = 32, LDA = BK + 8, LDK = BN + 8, THREADS = 128;
enum Phase { GRAM = 0, QUINTIC = 1, UPDATE = 2 };

struct Tiles {
    bf16 a[2][BM][LDA];
    union {
        bf16 nk[2][BN][LDA];  // right operand as rows of length K (GRAM, QUINTIC)
        bf16 kn[2][BK][LDK];  // right operand as rows of length N (UPDATE)
    };
};

struct Epilogue {
    float* Af;        // GRAM: A in fp32; QUINTIC: read
    bf16* Ab;         // GRAM: A in bf16
    bf16* Bb;         // QUINTIC: B in bf16
    bf16* Xnext;      // UPDATE: next X in bf16
    float* Xout;      // UPDATE: the output on the last step, else null
};

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING)); }

template <int PHASE, bool ALIGNED>
__device__ __forceinline__ void load_slice(Tiles& s, int st, int M, int N, int K, int kend, int m0, int n0, int k0,
                                           const bf16* __restrict__ A, const bf16* __restrict__ B) {
    if (ALIGNED) {  // every row length is a multiple of 8: 16-byte chunks are all in or all out
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const int c = threadIdx.x + THREADS * i, r = c >> 2, k8 = (c & 3) * 8;
            const bool oka = m0 + r < M && k0 + k8 < kend;
            copy16(&s.a[st][r][k8], oka ? A + (long long)(m0 + r) * K + k0 + k8 : A, oka);
            if (PHASE != UPDATE) {
                const bool okb = n0 + r < N && k0 + k8 < kend;
                copy16(&s.nk[st][r][k8], okb ? B + (long long)(n0 + r) * K + k0 + k8 : B, okb);
            } else {
                const int kr = c >> 3, n8 = (c & 7) * 8;
                const bool okb = k0 + kr < kend && n0 + n8 < N;
                copy16(&s.kn[st][kr][n8], okb ? B + (long long)(k0 + kr) * N + n0 + n8 : B, okb);
            }
        }
    } else {
        const bf16 zero = __float2bfloat16(0.0f);
        for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
            const int r = e / BK, k = e % BK;
            s.a[st][r][k] = m0 + r < M && k0 + k < kend ? A[(long long)(m0 + r) * K + k0 + k] : zero;
            if (PHASE != UPDATE) {
                s.nk[st][r][k] = n0 + r < N && k0 + k < kend ? B[(long long)(n0 + r) * K + k0 + k] : zero;
            } else {
                const int kr = e / BN, c = e % BN;
                s.kn[st][kr][c] = k0 + kr < kend && n0 + c < N ? B[(long long)(k0 + kr) * N + n0 + c] : zero;
            }
        }
    }
}

template <int PHASE, bool ALIGNED>
__global__ void __launch_bounds__(THREADS) ns_gemm(int M, int N, int K, int kchunk, const bf16* __restrict__ A,
                                                  const bf16* __restrict__ B, Epilogue out) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 1, wn = warp & 1;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int kbegin = blockIdx.z * kchunk, kend = min(K, kbegin + kchunk);  // kchunk: a multiple of BK
    const int slices = (kend - kbegin + BK - 1) / BK;
    load_slice<PHASE, ALIGNED>(s, 0, M, N, K, kend, m0, n0, kbegin, A, B);
    copy_commit();
    for (int t = 0; t < slices; ++t) {
        const int st = t & 1;
        if (t + 1 < slices) {
            load_slice<PHASE, ALIGNED>(s, st ^ 1, M, N, K, kend, m0, n0, kbegin + (t + 1) * BK, A, B);
            copy_commit();
            copy_wait<1>();
        } else {
            copy_wait<0>();
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> af[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(af[i], &s.a[st][wm * 32 + i * 16][kk], LDA);
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                if constexpr (PHASE != UPDATE) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> bfr;
                    wmma::load_matrix_sync(bfr, &s.nk[st][wn * 32 + j * 16][kk], LDA);
#pragma unroll
                    for (int i = 0; i < 2; ++i) wmma::mma_sync(acc[i][j], af[i], bfr, acc[i][j]);
                } else {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> bfr;
                    wmma::load_matrix_sync(bfr, &s.kn[st][kk][wn * 32 + j * 16], LDK);
#pragma unroll
                    for (int i = 0; i < 2; ++i) wmma::mma_sync(acc[i][j], af[i], bfr, acc[i][j]);
                }
            }
        }
        __syncthreads();  // this stage is refilled by the next iteration's copies
    }

    float* scratch = reinterpret_cast<float*>(raw) + warp * 256;  // the tiles are free now
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int col = n0 + wn * 32 + j * 16 + (lane & 15);
            for (int e = lane; e < 256; e += 32) {
                const int row = m0 + wm * 32 + i * 16 + (e >> 4);
                if (row >= M || col >= N) continue;
                const long long at = (long long)row * N + col;
                const float v = scratch[e];
                if (PHASE == GRAM) {
                    atomicAdd(out.Af + at, v);  // one partial sum per K split
                } else if (PHASE == QUINTIC) {
                    out.Bb[at] = __float2bfloat16_rn(NS_C * v + NS_B * out.Af[at]);
                } else {
                    const float x = NS_A * __bfloat162float(B[at]) + v;  // B is X here, M x N
                    out.Xnext[at] = __float2bfloat16_rn(x);
                    if (out.Xout != nullptr) out.Xout[at] = x;
                }
            }
            __syncwarp();
        }
}

__global__ void to_bf16(long long count, const float* __restrict__ in, bf16* __restrict__ out) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) out[e] = __float2bfloat16_rn(in[e]);
}

__global__ void sum_squares(long long count, const float* __restrict__ G, float* total) {
    __shared__ float warps[8];
    float acc = 0.0f;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x) {
        const float g = __ldg(G + e);
        acc = fmaf(g, g, acc);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < (blockDim.x >> 5) ? warps[threadIdx.x] : 0.0f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0) atomicAdd(total, acc);
    }
}

__global__ void scale_to_bf16(long long count, const float* __restrict__ G, const float* total, bf16* __restrict__ X) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) X[e] = __float2bfloat16_rn(__ldg(G + e) / (sqrtf(*total) + 1e-7f));
}

template <int PHASE>
static void gemm(bool aligned, int M, int N, int K, int splits, const bf16* A, const bf16* B, const Epilogue& out) {
    const int kchunk = ((K + splits - 1) / splits + BK - 1) / BK * BK;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM, (K + kchunk - 1) / kchunk);
    if (aligned)
        ns_gemm<PHASE, true><<<grid, THREADS>>>(M, N, K, kchunk, A, B, out);
    else
        ns_gemm<PHASE, false><<<grid, THREADS>>>(M, N, K, kchunk, A, B, out);
}

static size_t up4(size_t floats) { return (floats + 3) & ~size_t(3); }  // 16-byte boundaries

void newton_schulz_bf16(int m, int n, int steps, const float* G, float* X, float* work) {
    const long long mn = (long long)m * n, mm = (long long)m * m;
    if (mn <= 0) return;
    // work, in floats: two bf16 copies of X, A in fp32, A and B in bf16, the norm (< 2mn + 2mm + 64)
    size_t at = 0;
    bf16* xb[2];
    xb[0] = reinterpret_cast<bf16*>(work + at), at += up4((mn + 1) / 2);
    xb[1] = reinterpret_cast<bf16*>(work + at), at += up4((mn + 1) / 2);
    Epilogue out{};
    out.Af = work + at, at += up4(mm);
    out.Ab = reinterpret_cast<bf16*>(work + at), at += up4((mm + 1) / 2);
    out.Bb = reinterpret_cast<bf16*>(work + at), at += up4((mm + 1) / 2);
    float* total = work + at;
    cudaMemsetAsync(total, 0, sizeof(float));
    const long long blocks = (mn + 255) / 256;
    sum_squares<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256>>>(mn, G, total);
    scale_to_bf16<<<(unsigned)blocks, 256>>>(mn, G, total, xb[0]);
    const bool aligned = m % 8 == 0 && n % 8 == 0;
    // X X^T has only (m/64)^2 output tiles but is n deep: split K until there are ~2 blocks per SM,
    // keeping at least 8 slices per split
    int sms = 132, device = 0;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int tiles = ((m + BM - 1) / BM) * ((m + BN - 1) / BN);
    int splits = (2 * sms + tiles - 1) / tiles;
    const int deepest = (n + 8 * BK - 1) / (8 * BK);
    if (splits > deepest) splits = deepest;
    for (int s = 0; s < steps; ++s) {
        const bf16* x = xb[s & 1];
        out.Xnext = xb[(s + 1) & 1];
        out.Xout = s + 1 == steps ? X : nullptr;
        cudaMemsetAsync(out.Af, 0, mm * sizeof(float));
        gemm<GRAM>(aligned, m, m, n, splits, x, x, out);
        to_bf16<<<(unsigned)((mm + 255) / 256), 256>>>(mm, out.Af, out.Ab);
        gemm<QUINTIC>(aligned, m, m, m, 1, out.Ab, out.Ab, out);
        gemm<UPDATE>(aligned, m, n, m, 1, out.Bb, x, out);
    }
}
