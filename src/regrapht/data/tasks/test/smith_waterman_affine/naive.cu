// A direct parallel port: the cells of one anti-diagonal (i + j = d) depend only on the two before
// it, so one kernel per anti-diagonal computes all of its cells, one thread per (pair, cell). H is
// kept for the last three anti-diagonals and E and F for the last two, indexed by i, in rotating
// global buffers. Each cell with a positive H that may beat its pair's best offers it with a 64-bit
// atomicMax of (H, -i, -j), which keeps the first cell in row-major order among equals.
constexpr int kMatch = 2, kMismatch = -3, kOpen = 5, kExtend = 2;
constexpr int kNegInf = -(1 << 28);
constexpr unsigned long long kCoord = (1ULL << 21) - 1;  // m, n < 2^21

__global__ void sw_reset(int pairs, int stride, int* bufs, unsigned long long* best) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long cells = (long long)pairs * stride;
    if (t < pairs) best[t] = 0;
    if (t >= cells) return;
    for (int k = 0; k < 3; ++k) bufs[k * cells + t] = 0;               // H on the diagonals: 0 off the matrix
    for (int k = 3; k < 7; ++k) bufs[k * cells + t] = kNegInf;         // E and F
}

__global__ void sw_diagonal(int pairs, int m, int n, int d, int stride, const unsigned char* a, const unsigned char* b,
                            const int* h2, const int* h1, const int* e1, const int* f1, int* h0, int* e0, int* f0,
                            unsigned long long* best) {
    const int i_lo = max(1, d - n), i_hi = min(m, d - 1);
    const int p = blockIdx.y;
    const int i = i_lo + blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs || i > i_hi) return;
    const int j = d - i;
    const long long row = (long long)p * stride;
    // (i, j-1) and (i-1, j) lie on diagonal d-1, (i-1, j-1) on d-2; row 0 and column 0 are the border
    const int h_left = j > 1 ? h1[row + i] : 0, e_left = j > 1 ? e1[row + i] : kNegInf;
    const int h_up = i > 1 ? h1[row + i - 1] : 0, f_up = i > 1 ? f1[row + i - 1] : kNegInf;
    const int h_diag = (i > 1 && j > 1) ? h2[row + i - 1] : 0;
    const int e = max(e_left - kExtend, h_left - kOpen);
    const int f = max(f_up - kExtend, h_up - kOpen);
    const int sub = a[(long long)p * m + i - 1] == b[(long long)p * n + j - 1] ? kMatch : kMismatch;
    const int h = max(max(0, h_diag + sub), max(e, f));
    h0[row + i] = h;
    e0[row + i] = e;
    f0[row + i] = f;
    if (h > 0) {
        const unsigned long long key =
            ((unsigned long long)h << 42) | ((kCoord - i) << 21) | (kCoord - (unsigned long long)j);
        if (key > best[p]) atomicMax(&best[p], key);
    }
}

__global__ void sw_unpack(int pairs, const unsigned long long* best, int* score, int* end_i, int* end_j) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const unsigned long long key = best[p];
    score[p] = (int)(key >> 42);
    end_i[p] = key ? (int)(kCoord - ((key >> 21) & kCoord)) : 0;
    end_j[p] = key ? (int)(kCoord - (key & kCoord)) : 0;
}

void smith_waterman_affine(int pairs, int m, int n, const unsigned char* a, const unsigned char* b, int* score,
                           int* end_i, int* end_j) {
    if (pairs <= 0) return;
    const int stride = m + 1;
    static int* bufs = nullptr;
    static unsigned long long* best = nullptr;
    static long long held = 0;
    static int held_pairs = 0;
    const long long cells = (long long)pairs * stride;
    if (cells > held) {
        if (bufs) cudaFree(bufs);
        cudaMalloc(&bufs, 7 * cells * sizeof(int));
        held = cells;
    }
    if (pairs > held_pairs) {
        if (best) cudaFree(best);
        cudaMalloc(&best, pairs * sizeof(unsigned long long));
        held_pairs = pairs;
    }
    const long long reset = cells > pairs ? cells : pairs;
    sw_reset<<<(int)((reset + 255) / 256), 256>>>(pairs, stride, bufs, best);
    // rotating roles: H on d-2, d-1, d and E, F on d-1, d
    int* h[3] = {bufs, bufs + cells, bufs + 2 * cells};
    int* e[2] = {bufs + 3 * cells, bufs + 4 * cells};
    int* f[2] = {bufs + 5 * cells, bufs + 6 * cells};
    for (int d = 2; d <= m + n; ++d) {
        const int len = min(m, d - 1) - max(1, d - n) + 1;
        if (len <= 0) continue;
        int* h0 = h[d % 3];
        const int* h1 = h[(d + 2) % 3];
        const int* h2 = h[(d + 1) % 3];
        sw_diagonal<<<dim3((len + 127) / 128, pairs), 128>>>(pairs, m, n, d, stride, a, b, h2, h1, e[(d + 1) % 2],
                                                             f[(d + 1) % 2], h0, e[d % 2], f[d % 2], best);
    }
    sw_unpack<<<(pairs + 255) / 256, 256>>>(pairs, best, score, end_i, end_j);
}
