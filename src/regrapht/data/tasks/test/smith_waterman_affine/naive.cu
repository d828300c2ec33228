// One thread per pair runs the reference's row-by-row recurrence, with its H and F rows in a
// global scratch buffer.
constexpr int kMatch = 2, kMismatch = -3, kOpen = 5, kExtend = 2;
constexpr int kNegInf = -(1 << 28);

__global__ void sw_kernel(int pairs, int m, int n, const unsigned char* a, const unsigned char* b, int* rows,
                          int* score, int* end_i, int* end_j) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const unsigned char* s = a + static_cast<long long>(p) * m;
    const unsigned char* t = b + static_cast<long long>(p) * n;
    int* h_row = rows + static_cast<long long>(p) * 2 * (n + 1);
    int* f_row = h_row + (n + 1);
    for (int j = 0; j <= n; ++j) {
        h_row[j] = 0;
        f_row[j] = kNegInf;
    }
    int best = 0, bi = 0, bj = 0;
    for (int i = 1; i <= m; ++i) {
        int diag = 0, left = 0, e = kNegInf;
        for (int j = 1; j <= n; ++j) {
            e = max(e - kExtend, left - kOpen);
            int f = max(f_row[j] - kExtend, h_row[j] - kOpen);
            int sub = s[i - 1] == t[j - 1] ? kMatch : kMismatch;
            int h = max(max(0, diag + sub), max(e, f));
            diag = h_row[j];
            h_row[j] = h;
            f_row[j] = f;
            left = h;
            if (h > best) {
                best = h;
                bi = i;
                bj = j;
            }
        }
    }
    score[p] = best;
    end_i[p] = bi;
    end_j[p] = bj;
}

void smith_waterman_affine(int pairs, int m, int n, const unsigned char* a, const unsigned char* b, int* score,
                           int* end_i, int* end_j) {
    if (pairs <= 0) return;
    static int* rows = nullptr;
    static long long held = 0;
    long long need = static_cast<long long>(pairs) * 2 * (n + 1);
    if (need > held) {
        if (rows) cudaFree(rows);
        cudaMalloc(&rows, need * sizeof(int));
        held = need;
    }
    sw_kernel<<<(pairs + 63) / 64, 64>>>(pairs, m, n, a, b, rows, score, end_i, end_j);
}
