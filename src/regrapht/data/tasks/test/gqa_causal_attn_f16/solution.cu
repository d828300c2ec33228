// steps: tensor_core_mma, shared_memory_tiling, algorithmic_change, warp_shuffle_reduction, async_copy_pipelining, work_decomposition
// Flash attention with WMMA: a block takes 64 queries of one head (a warp per 16 rows) and streams
// the 64-key tiles of its key/value head up to the diagonal through shared memory (16-byte cp.async,
// rows past L zero-filled; the next tile's copies are issued before the current tile's work, into a
// second buffer). S = Q K^T comes from fp16 WMMA with fp32 accumulation into a per-warp scratch;
// two lanes own a row for the online softmax (exp2 with the scale folded in, max and sum combined
// by one shuffle), write P in fp16, and rescale their half of the row's fp32 output accumulator,
// which lives in registers. P V is another WMMA product, 64 columns at a time through the same
// scratch (111 KiB of shared memory at D = 128: two blocks per SM), added to those registers, so
// scores never reach global memory and K/V are read once per 64 queries instead of once per query.
// Warps skip key tiles entirely above their rows, and blocks start with the longest (last) query
// tiles, so the causal triangle's uneven work balances across the GPU.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BQ = 64, BKV = 64, WARPS = 4, THREADS = WARPS * 32;

template <int D>
struct Layout {
    static constexpr int LDH = D + 8;                           // fp16 rows of Q, K, V: 16-byte offsets
    static constexpr int SW = BKV + 4;                          // fp32 scratch row: scores, or 64 columns of P V
    static constexpr int LDP = BKV + 8;                         // fp16 rows of P
    static constexpr int Q_BYTES = BQ * LDH * 2;
    static constexpr int KV_BYTES = BKV * LDH * 2;              // one buffer of K or V
    static constexpr int S_BYTES = WARPS * 16 * SW * 4;
    static constexpr int P_BYTES = WARPS * 16 * LDP * 2;
    static constexpr int TOTAL = Q_BYTES + 4 * KV_BYTES + S_BYTES + P_BYTES;
};

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING)); }

// rows r0.. of a [L][D] fp16 matrix into a [64][D + 8] tile, zero past L
template <int D>
__device__ __forceinline__ void load_rows(__half* tile, const __half* src, int r0, int L) {
    constexpr int CHUNKS = D / 8;
    for (int c = threadIdx.x; c < 64 * CHUNKS; c += THREADS) {
        const int r = c / CHUNKS, col = (c % CHUNKS) * 8;
        const bool ok = r0 + r < L;
        copy16(tile + r * Layout<D>::LDH + col, ok ? src + (long long)(r0 + r) * D + col : src, ok);
    }
}

template <int D>
__global__ void __launch_bounds__(THREADS) gqa_flash(int Hq, int Hkv, int L, float scale_log2,
                                                    const __half* __restrict__ Q, const __half* __restrict__ K,
                                                    const __half* __restrict__ V, float* __restrict__ O) {
    using Lay = Layout<D>;
    extern __shared__ __align__(128) unsigned char smem[];
    __half* qs = reinterpret_cast<__half*>(smem);
    __half* kbuf = reinterpret_cast<__half*>(smem + Lay::Q_BYTES);                 // [2] buffers
    __half* vbuf = reinterpret_cast<__half*>(smem + Lay::Q_BYTES + 2 * Lay::KV_BYTES);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float* sw = reinterpret_cast<float*>(smem + Lay::Q_BYTES + 4 * Lay::KV_BYTES) + warp * 16 * Lay::SW;
    __half* pw = reinterpret_cast<__half*>(smem + Lay::Q_BYTES + 4 * Lay::KV_BYTES + Lay::S_BYTES) + warp * 16 * Lay::LDP;

    const int qt = gridDim.x - 1 - blockIdx.x;  // longest query tiles first
    const int q0 = qt * BQ;
    const int bh = blockIdx.y, h = bh % Hq, b = bh / Hq;
    const long long qoff = (long long)bh * L * D;
    const long long kvoff = ((long long)b * Hkv + h / (Hq / Hkv)) * L * D;
    const __half* kg = K + kvoff;
    const __half* vg = V + kvoff;

    load_rows<D>(qs, Q + qoff, q0, L);
    load_rows<D>(kbuf, kg, 0, L);
    load_rows<D>(vbuf, vg, 0, L);
    copy_commit();

    const int r = lane >> 1, half = lane & 1;   // this lane's row of the warp's 16, and half of the columns
    const int qrow = q0 + warp * 16 + r;
    const int wq_last = q0 + warp * 16 + 15;
    constexpr int OH = D / 2;
    float o[OH];
#pragma unroll
    for (int c = 0; c < OH; ++c) o[c] = 0.0f;
    float m = -INFINITY, l = 0.0f;

    const int last_key = min(q0 + BQ - 1, L - 1);
    const int tiles = last_key / BKV + 1;
    for (int t = 0; t < tiles; ++t) {
        const int st = t & 1;
        if (t + 1 < tiles) {  // the other buffer was released by the previous iteration's closing barrier
            load_rows<D>(kbuf + (st ^ 1) * BKV * Lay::LDH, kg, (t + 1) * BKV, L);
            load_rows<D>(vbuf + (st ^ 1) * BKV * Lay::LDH, vg, (t + 1) * BKV, L);
            copy_commit();
            copy_wait<1>();
        } else {
            copy_wait<0>();
        }
        __syncthreads();
        const int k0 = t * BKV;
        if (k0 <= wq_last) {  // else every key of the tile is above this warp's rows
            const __half* ks = kbuf + st * BKV * Lay::LDH;
            const __half* vs = vbuf + st * BKV * Lay::LDH;
#pragma unroll
            for (int j = 0; j < BKV / 16; ++j) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
                wmma::fill_fragment(s, 0.0f);
#pragma unroll
                for (int d = 0; d < D; d += 16) {
                    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kb;
                    wmma::load_matrix_sync(a, qs + (warp * 16) * Lay::LDH + d, Lay::LDH);
                    wmma::load_matrix_sync(kb, ks + (j * 16) * Lay::LDH + d, Lay::LDH);
                    wmma::mma_sync(s, a, kb, s);
                }
                wmma::store_matrix_sync(sw + j * 16, s, Lay::SW, wmma::mem_row_major);
            }
            __syncwarp();
            // online softmax on this lane's 32 scores of row r
            float x[32];
            float top = -INFINITY;
#pragma unroll
            for (int c = 0; c < 32; ++c) {
                const int key = k0 + half * 32 + c;
                x[c] = (key <= qrow && key < L) ? sw[r * Lay::SW + half * 32 + c] * scale_log2 : -INFINITY;
                top = fmaxf(top, x[c]);
            }
            top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
            const float m_new = fmaxf(m, top);  // finite: key 0 of tile 0 is visible to every row
            float sum = 0.0f;
#pragma unroll
            for (int c = 0; c < 32; ++c) {
                const float p = exp2f(x[c] - m_new);
                sum += p;
                pw[r * Lay::LDP + half * 32 + c] = __float2half_rn(p);
            }
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            const float alpha = exp2f(m - m_new);
            l = l * alpha + sum;
            m = m_new;
#pragma unroll
            for (int c = 0; c < OH; ++c) o[c] *= alpha;
            __syncwarp();
            // P V, 64 output columns at a time, through the scratch into this lane's registers
#pragma unroll
            for (int cb = 0; cb < D; cb += 64) {
#pragma unroll
                for (int jd = 0; jd < 4; ++jd) {
                    if (cb + jd * 16 >= D) break;
                    wmma::fragment<wmma::accumulator, 16, 16, 16, float> pv;
                    wmma::fill_fragment(pv, 0.0f);
#pragma unroll
                    for (int kk = 0; kk < BKV; kk += 16) {
                        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pa;
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vb;
                        wmma::load_matrix_sync(pa, pw + kk, Lay::LDP);
                        wmma::load_matrix_sync(vb, vs + kk * Lay::LDH + cb + jd * 16, Lay::LDH);
                        wmma::mma_sync(pv, pa, vb, pv);
                    }
                    wmma::store_matrix_sync(sw + jd * 16, pv, Lay::SW, wmma::mem_row_major);
                }
                __syncwarp();
#pragma unroll
                for (int c = 0; c < OH; ++c) {
                    const int col = half * OH + c - cb;
                    if (col >= 0 && col < 64) o[c] += sw[r * Lay::SW + col];
                }
                __syncwarp();
            }
        }
        __syncthreads();  // this buffer pair is refilled by the next iteration's copies
    }
    if (qrow < L) {
        const float inv = 1.0f / l;
        float* out = O + qoff + (long long)qrow * D + half * OH;
#pragma unroll
        for (int c = 0; c < OH; c += 4)
            *reinterpret_cast<float4*>(out + c) = make_float4(o[c] * inv, o[c + 1] * inv, o[c + 2] * inv, o[c + 3] * inv);
    }
}

template <int D>
static void launch(int batch, int Hq, int Hkv, int L, const __half* Q, const __half* K, const __half* V, float* O) {
    const int bytes = Layout<D>::TOTAL;
    cudaFuncSetAttribute(gqa_flash<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    const dim3 grid((L + BQ - 1) / BQ, batch * Hq);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    gqa_flash<D><<<grid, THREADS, bytes>>>(Hq, Hkv, L, scale_log2, Q, K, V, O);
}

void gqa_causal_attn_f16(int batch, int Hq, int Hkv, int L, int D, const unsigned short* Q, const unsigned short* K,
                         const unsigned short* V, float* O) {
    if (batch <= 0 || Hq <= 0 || L <= 0) return;
    const auto* q = reinterpret_cast<const __half*>(Q);
    const auto* k = reinterpret_cast<const __half*>(K);
    const auto* v = reinterpret_cast<const __half*>(V);
    switch (D) {
        case 16: launch<16>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 32: launch<32>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 48: launch<48>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 64: launch<64>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 80: launch<80>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 96: launch<96>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 112: launch<112>(batch, Hq, Hkv, L, q, k, v, O); break;
        case 128: launch<128>(batch, Hq, Hkv, L, q, k, v, O); break;
        default: break;  // excluded by the task's requirements
    }
}
