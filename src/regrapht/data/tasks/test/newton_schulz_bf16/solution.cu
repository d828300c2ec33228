// steps: tensor_core_mma, mixed_precision, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, kernel_fusion, split_k_decomposition, warp_shuffle_reduction, algorithmic_change
// Muon's recipe: every GEMM runs on bf16 tensor cores (WMMA, fp32 accumulation) with X kept in bf16
// between phases. A = X X^T and B = b A + c A A are symmetric, which the library's three GemmEx
// calls do not use: both are formed from the 64 x 64 tiles on and above the diagonal only
// (T(T+1)/2 of T^2 tiles: 36 of 64 at the bench's m = 512, so X X^T costs 56% of its flops and
// A A as much), and the short passes between GEMMs read a lower tile from its mirror. A step is
// five launches: X X^T (split along K, fp32 atomics into A; its few tiles are n deep), a pass that
// rounds A to bf16 and sets B to b A, A A (split along K too, c times each partial added into B:
// 36 tiles alone would leave most SMs idle), a pass that rounds B to bf16 and clears A for the
// next step, and X' = a X + B X (the epilogue reads X, writes X' in bf16, and in fp32 into the
// output on the last step). One GEMM kernel, templated on the phase: 64 x 64 tiles, 4 warps of
// 32 x 32, 32-deep slices double buffered with 16-byte cp.async in padded rows. The Frobenius norm
// is a warp-shuffle block reduction.
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
    float* Af;        // GRAM: partial sums of A's upper tiles in fp32
    float* Bf;        // QUINTIC: c times partial sums of A A's upper tiles, added to b A in fp32
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

// The tile (row, col) on or above the diagonal of a T x T tile grid that blockIdx.x names, row-major
__device__ __forceinline__ void upper_tile(int t, int T, int& row, int& col) {
    row = 0;
    while (t >= T - row) t -= T - row++;
    col = row + t;
}

// GRAM and QUINTIC (symmetric results) run blockIdx.x over the upper tiles of a tri x tri grid;
// UPDATE runs a plain grid (tri = 0)
template <int PHASE, bool ALIGNED>
__global__ void __launch_bounds__(THREADS) ns_gemm(int M, int N, int K, int kchunk, int tri, const bf16* __restrict__ A,
                                                  const bf16* __restrict__ B, Epilogue out) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    int tile_row = blockIdx.y, tile_col = blockIdx.x;
    if (PHASE != UPDATE) upper_tile(blockIdx.x, tri, tile_row, tile_col);
    const int m0 = tile_row * BM, n0 = tile_col * BN;
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
                    atomicAdd(out.Bf + at, NS_C * v);  // B was set to b A by the pass before
                } else {
                    const float x = NS_A * __bfloat162float(B[at]) + v;  // B is X here, M x N
                    out.Xnext[at] = __float2bfloat16_rn(x);
                    if (out.Xout != nullptr) out.Xout[at] = x;
                }
            }
            __syncwarp();
        }
}

// A symmetric m x m matrix of which only the tiles on and above the diagonal were formed: the
// element's own place there, or its mirror's
__device__ __forceinline__ long long upper_place(int m, int row, int col) {
    return row / BM <= col / BN ? (long long)row * m + col : (long long)col * m + row;
}

// After X X^T: A to bf16 in full, and B's fp32 sums start from b A
__global__ void after_gram(int m, const float* __restrict__ Af, bf16* __restrict__ Ab, float* __restrict__ Bf) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)m * m) return;
    const int row = (int)(e / m), col = (int)(e % m);
    const float a = Af[upper_place(m, row, col)];
    Ab[e] = __float2bfloat16_rn(a);
    Bf[e] = NS_B * a;
}

// After A A: B to bf16 in full, and A's sums cleared for the next step's X X^T
__global__ void after_quintic(int m, const float* __restrict__ Bf, bf16* __restrict__ Bb, float* __restrict__ Af) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)m * m) return;
    const int row = (int)(e / m), col = (int)(e % m);
    Bb[e] = __float2bfloat16_rn(Bf[upper_place(m, row, col)]);
    Af[e] = 0.0f;
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

// GRAM and QUINTIC: M = N, upper tiles only; UPDATE: every tile
template <int PHASE>
static void gemm(bool aligned, int M, int N, int K, int splits, const bf16* A, const bf16* B, const Epilogue& out) {
    const int kchunk = ((K + splits - 1) / splits + BK - 1) / BK * BK;
    const int tri = PHASE == UPDATE ? 0 : (M + BM - 1) / BM;
    const dim3 grid(tri ? tri * (tri + 1) / 2 : (N + BN - 1) / BN, tri ? 1 : (M + BM - 1) / BM, (K + kchunk - 1) / kchunk);
    if (aligned)
        ns_gemm<PHASE, true><<<grid, THREADS>>>(M, N, K, kchunk, tri, A, B, out);
    else
        ns_gemm<PHASE, false><<<grid, THREADS>>>(M, N, K, kchunk, tri, A, B, out);
}

// K splits that give about `target` blocks over `tiles` output tiles, keeping at least `least` slices each
static int k_splits(int target, int tiles, int K, int least) {
    const int splits = (target + tiles - 1) / tiles, deepest = (K + least * BK - 1) / (least * BK);
    return splits < deepest ? splits : deepest;
}

static size_t up4(size_t floats) { return (floats + 3) & ~size_t(3); }  // 16-byte boundaries

void newton_schulz_bf16(int m, int n, int steps, const float* G, float* X, float* work) {
    const long long mn = (long long)m * n, mm = (long long)m * m;
    if (mn <= 0) return;
    // work, in floats: two bf16 copies of X, A and B in fp32 and in bf16, the norm: mn + 3mm + 19 at
    // most, inside 2mn + 2mm + 64 since m <= n
    size_t at = 0;
    bf16* xb[2];
    xb[0] = reinterpret_cast<bf16*>(work + at), at += up4((mn + 1) / 2);
    xb[1] = reinterpret_cast<bf16*>(work + at), at += up4((mn + 1) / 2);
    Epilogue out{};
    out.Af = work + at, at += up4(mm);
    out.Bf = work + at, at += up4(mm);
    bf16* Ab = reinterpret_cast<bf16*>(work + at);
    at += up4((mm + 1) / 2);
    bf16* Bb = reinterpret_cast<bf16*>(work + at);
    at += up4((mm + 1) / 2);
    float* total = work + at;
    cudaMemsetAsync(total, 0, sizeof(float));
    cudaMemsetAsync(out.Af, 0, mm * sizeof(float));  // later steps' A is cleared by after_quintic
    const long long blocks = (mn + 255) / 256;
    sum_squares<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256>>>(mn, G, total);
    scale_to_bf16<<<(unsigned)blocks, 256>>>(mn, G, total, xb[0]);
    const bool aligned = m % 8 == 0 && n % 8 == 0;
    int sms = 132, device = 0;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int tri = (m + BM - 1) / BM, upper = tri * (tri + 1) / 2;
    // ~2 blocks per SM for both symmetric products: X X^T keeps at least 8 slices per split, A A
    // (only m deep) at least 4
    const int gram_splits = k_splits(2 * sms, upper, n, 8), quintic_splits = k_splits(2 * sms, upper, m, 4);
    const unsigned square_blocks = (unsigned)((mm + 255) / 256);
    for (int s = 0; s < steps; ++s) {
        const bf16* x = xb[s & 1];
        out.Xnext = xb[(s + 1) & 1];
        out.Xout = s + 1 == steps ? X : nullptr;
        gemm<GRAM>(aligned, m, m, n, gram_splits, x, x, out);
        after_gram<<<square_blocks, 256>>>(m, out.Af, Ab, out.Bf);
        gemm<QUINTIC>(aligned, m, m, m, quintic_splits, Ab, Ab, out);
        after_quintic<<<square_blocks, 256>>>(m, out.Bf, Bb, out.Af);
        gemm<UPDATE>(aligned, m, n, m, 1, Bb, x, out);
    }
}
