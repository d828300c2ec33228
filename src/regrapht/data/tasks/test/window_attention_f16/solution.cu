// steps: tensor_core_mma, shared_memory_tiling, mixed_precision, warp_shuffle_reduction, vectorized_access, work_decomposition, register_tiling, loop_unrolling
// A block of four warps per window, a warp per 16 query rows. Q, K and V arrive in shared memory by
// 16-byte cp.async copies (rows past L zero-filled), S = Q K^T comes from fp16 WMMA with fp32
// accumulation, and the softmax runs in registers (two lanes per row, max and sum by shuffles).
// P V runs on the tensor cores too without rounding P to fp16: P is split into P_hi = fp16(P) and
// P_lo = fp16(P - P_hi), and O = P_hi V + P_lo V accumulates in fp32 (P's error ~2^-22, not 2^-11).
// Each warp's score tile is reused for its P halves and then for its O tile, so a window needs
// 34 KB of shared memory at d = 32 (six windows per SM); 1/l scales O on its way out (float4
// stores).
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int MAX_L = 64, LD = 72;  // scratch rows (up to 64 scores): 16-byte offsets against bank conflicts
constexpr int WARPS = MAX_L / 16, THREADS = WARPS * 32;
constexpr int WARP_BYTES = 16 * LD * 4;  // a warp's scores (fp32), P halves (2 x fp16) or O (fp32)
// Q, K and V rows hold d values plus 8 (16 bytes): rows 16 bytes apart mod 128 keep the WMMA loads
// free of bank conflicts, and sizing them by d rather than the largest d (64) shrinks a window's
// shared memory at d = 32 from 46 KB to 34 KB, so six blocks fit on an SM instead of four (the
// launch bounds hold them to 80 registers): more windows' loads in flight for a kernel that is
// bound by moving Q, K, V and O.

__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
}

template <int DT>  // d = 16 * DT
__global__ void __launch_bounds__(THREADS, 6) window_attention_tc(int L, const __half* __restrict__ Q,
                                                              const __half* __restrict__ K,
                                                              const __half* __restrict__ V, float* __restrict__ O) {
    constexpr int D = 16 * DT, LDT = D + 8, TILE_BYTES = MAX_L * LDT * 2;  // Q, K, V rows and tiles
    __shared__ __align__(128) unsigned char smem[3 * TILE_BYTES + WARPS * WARP_BYTES + MAX_L * 4];
    __half* qs = reinterpret_cast<__half*>(smem);
    __half* ks = qs + MAX_L * LDT;
    __half* vs = ks + MAX_L * LDT;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned char* mine = smem + 3 * TILE_BYTES + warp * WARP_BYTES;
    float* inv_l = reinterpret_cast<float*>(smem + 3 * TILE_BYTES + WARPS * WARP_BYTES);
    const int tiles = (L + 15) / 16, padded = tiles * 16;
    const long long base = (long long)blockIdx.x * L * D;

    constexpr int CHUNKS = D / 8;  // 16-byte chunks per row
    for (int c = threadIdx.x; c < 3 * padded * CHUNKS; c += THREADS) {
        const int which = c / (padded * CHUNKS), rest = c % (padded * CHUNKS);
        const int row = rest / CHUNKS, col = (rest % CHUNKS) * 8;
        const __half* src = which == 0 ? Q : which == 1 ? K : V;
        __half* dst = which == 0 ? qs : which == 1 ? ks : vs;
        const bool ok = row < L;
        copy16(dst + row * LDT + col, ok ? src + base + (long long)row * D + col : src, ok);
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::);
    __syncthreads();
    if (warp >= tiles) return;  // no barrier follows

    // S = Q K^T for this warp's 16 rows
    float* scores = reinterpret_cast<float*>(mine);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qa[DT];
#pragma unroll
    for (int kk = 0; kk < DT; ++kk) wmma::load_matrix_sync(qa[kk], qs + warp * 16 * LDT + kk * 16, LDT);
    for (int nt = 0; nt < tiles; ++nt) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
        wmma::fill_fragment(s, 0.0f);
#pragma unroll
        for (int kk = 0; kk < DT; ++kk) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kb;  // K^T
            wmma::load_matrix_sync(kb, ks + nt * 16 * LDT + kk * 16, LDT);
            wmma::mma_sync(s, qa[kk], kb, s);
        }
        wmma::store_matrix_sync(scores + nt * 16, s, LD, wmma::mem_row_major);
    }
    __syncwarp();

    // softmax: lanes 2r and 2r+1 share row r, taking even and odd columns
    const int r = lane >> 1, parity = lane & 1;
    const float to_log2 = rsqrtf((float)D) * 1.4426950408889634f;
    float p[MAX_L / 2];
    float top = -INFINITY;
#pragma unroll
    for (int t = 0; t < MAX_L / 2; ++t) {
        const int j = parity + 2 * t;
        p[t] = j < L ? scores[r * LD + j] * to_log2 : -INFINITY;
        top = fmaxf(top, p[t]);
    }
    top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
    float total = 0.0f;
#pragma unroll
    for (int t = 0; t < MAX_L / 2; ++t) {
        p[t] = parity + 2 * t < L ? exp2f(p[t] - top) : 0.0f;
        total += p[t];
    }
    total += __shfl_xor_sync(0xffffffffu, total, 1);
    __syncwarp();  // every score is in registers: the tile becomes P_hi | P_lo
    __half* p_hi = reinterpret_cast<__half*>(mine);
    __half* p_lo = p_hi + 16 * LD;
#pragma unroll
    for (int t = 0; t < MAX_L / 2; ++t) {
        const int j = parity + 2 * t;
        if (j < padded) {
            const __half hi = __float2half_rn(p[t]);
            p_hi[r * LD + j] = hi;
            p_lo[r * LD + j] = __float2half_rn(p[t] - __half2float(hi));
        }
    }
    if (parity == 0) inv_l[warp * 16 + r] = 1.0f / total;
    __syncwarp();

    // O = P_hi V + P_lo V
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[DT];
#pragma unroll
    for (int ct = 0; ct < DT; ++ct) wmma::fill_fragment(o[ct], 0.0f);
    for (int kt = 0; kt < tiles; ++kt) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> ph, pl;
        wmma::load_matrix_sync(ph, p_hi + kt * 16, LD);
        wmma::load_matrix_sync(pl, p_lo + kt * 16, LD);
#pragma unroll
        for (int ct = 0; ct < DT; ++ct) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vb;
            wmma::load_matrix_sync(vb, vs + kt * 16 * LDT + ct * 16, LDT);
            wmma::mma_sync(o[ct], ph, vb, o[ct]);
            wmma::mma_sync(o[ct], pl, vb, o[ct]);
        }
    }
    __syncwarp();  // P is read: the tile becomes O
    float* out_tile = reinterpret_cast<float*>(mine);
#pragma unroll
    for (int ct = 0; ct < DT; ++ct) wmma::store_matrix_sync(out_tile + ct * 16, o[ct], LD, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 16 * D / 4; e += 32) {
        const int row = e / (D / 4), col = (e % (D / 4)) * 4;
        const int i = warp * 16 + row;
        if (i < L) {
            const float s = inv_l[i];
            const float4 v = *reinterpret_cast<const float4*>(out_tile + row * LD + col);
            *reinterpret_cast<float4*>(O + base + (long long)i * D + col) = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
        }
    }
}

void window_attention_f16(int windows, int L, int d, const unsigned short* Q, const unsigned short* K,
                          const unsigned short* V, float* O) {
    if (windows <= 0 || L <= 0) return;
    const auto* q = reinterpret_cast<const __half*>(Q);
    const auto* k = reinterpret_cast<const __half*>(K);
    const auto* v = reinterpret_cast<const __half*>(V);
    switch (d / 16) {
        case 1: window_attention_tc<1><<<windows, THREADS>>>(L, q, k, v, O); break;
        case 2: window_attention_tc<2><<<windows, THREADS>>>(L, q, k, v, O); break;
        case 3: window_attention_tc<3><<<windows, THREADS>>>(L, q, k, v, O); break;
        default: window_attention_tc<4><<<windows, THREADS>>>(L, q, k, v, O); break;
    }
}
