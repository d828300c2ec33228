// steps: parallelize, algorithmic_change, work_decomposition, register_tiling, shared_memory_tiling, loop_unrolling, warp_shuffle_reduction
// One block per pair runs a pipelined wavefront. Thread t owns a strip of 16 consecutive columns
// and keeps that strip's H and F values (and its letters of b) in registers; at step s it computes
// row i = s - t + 1 of its strip, taking H and E of the cell just left of the strip from thread
// t - 1 through a double-buffered shared array (thread t - 1 finished that row one step earlier).
// Matrices wider than 128 * 16 columns are processed in bands whose right-most column is handed to
// the next band through a small global buffer. Each thread tracks its best cell with the
// row-major tie rule, and the block combines them with warp shuffles and a shared-memory step.
constexpr int kThreads = 128;
constexpr int kC = 16;                 // columns per thread
constexpr int kBand = kThreads * kC;   // columns per band
constexpr int kMatch = 2, kMismatch = -3, kOpen = 5, kExtend = 2;
constexpr int kNegInf = -(1 << 28);

struct Best {
    int h, i, j;
};

__device__ __forceinline__ bool better(int h, int i, int j, const Best& b) {
    return h > b.h || (h == b.h && (i < b.i || (i == b.i && j < b.j)));
}

__global__ void sw_wavefront(int m, int n, const unsigned char* a, const unsigned char* b, int* boundary, int* score,
                             int* end_i, int* end_j) {
    __shared__ int pass_h[2][kThreads], pass_e[2][kThreads];
    __shared__ Best warp_best[kThreads / 32];
    const int p = blockIdx.x, t = threadIdx.x;
    const unsigned char* s = a + static_cast<long long>(p) * m;
    const unsigned char* q = b + static_cast<long long>(p) * n;
    int* bnd_h = boundary + static_cast<long long>(p) * 2 * (m + 1);
    int* bnd_e = bnd_h + (m + 1);
    Best best = {0, 0, 0};

    for (int band0 = 1; band0 <= n; band0 += kBand) {
        const int c0 = band0 + t * kC;  // my first column (1-based)
        const bool first_band = band0 == 1;
        const bool more_bands = band0 + kBand <= n;
        unsigned char bc[kC];
        int h_up[kC], f_up[kC];
#pragma unroll
        for (int k = 0; k < kC; ++k) {
            bc[k] = c0 + k <= n ? q[c0 + k - 1] : 0;
            h_up[k] = 0;
            f_up[k] = kNegInf;
        }
        int diag_left = 0;  // H(i - 1, c0 - 1)
        const int steps = m + kThreads - 1;
        for (int st = 0; st < steps; ++st) {
            const int i = st - t + 1;
            if (i >= 1 && i <= m) {
                int h_left, e_left;
                if (t == 0) {
                    h_left = first_band ? 0 : bnd_h[i];
                    e_left = first_band ? kNegInf : bnd_e[i];
                } else {
                    h_left = pass_h[(st - 1) & 1][t - 1];
                    e_left = pass_e[(st - 1) & 1][t - 1];
                }
                const unsigned char ai = s[i - 1];
                int diag = diag_left;
                diag_left = h_left;
                int h = h_left, e = e_left;
#pragma unroll
                for (int k = 0; k < kC; ++k) {
                    e = max(e - kExtend, h - kOpen);
                    const int f = max(f_up[k] - kExtend, h_up[k] - kOpen);
                    const int sub = ai == bc[k] ? kMatch : kMismatch;
                    const int hn = max(max(0, diag + sub), max(e, f));
                    diag = h_up[k];
                    h_up[k] = hn;
                    f_up[k] = f;
                    h = hn;
                    if (hn >= best.h && c0 + k <= n && better(hn, i, c0 + k, best)) best = {hn, i, c0 + k};
                }
                pass_h[st & 1][t] = h;
                pass_e[st & 1][t] = e;
                if (t == kThreads - 1 && more_bands) {
                    bnd_h[i] = h;
                    bnd_e[i] = e;
                }
            }
            __syncthreads();
        }
    }

    for (int off = 16; off > 0; off >>= 1) {
        const int oh = __shfl_down_sync(0xffffffffu, best.h, off);
        const int oi = __shfl_down_sync(0xffffffffu, best.i, off);
        const int oj = __shfl_down_sync(0xffffffffu, best.j, off);
        if (better(oh, oi, oj, best)) best = {oh, oi, oj};
    }
    if ((t & 31) == 0) warp_best[t >> 5] = best;
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < kThreads / 32; ++w)
            if (better(warp_best[w].h, warp_best[w].i, warp_best[w].j, best)) best = warp_best[w];
        score[p] = best.h;
        end_i[p] = best.i;
        end_j[p] = best.j;
    }
}

void smith_waterman_affine(int pairs, int m, int n, const unsigned char* a, const unsigned char* b, int* score,
                           int* end_i, int* end_j) {
    if (pairs <= 0) return;
    static int* boundary = nullptr;
    static long long held = 0;
    long long need = static_cast<long long>(pairs) * 2 * (m + 1);
    if (need > held) {
        if (boundary) cudaFree(boundary);
        cudaMalloc(&boundary, need * sizeof(int));
        held = need;
    }
    sw_wavefront<<<pairs, kThreads>>>(m, n, a, b, boundary, score, end_i, end_j);
}
