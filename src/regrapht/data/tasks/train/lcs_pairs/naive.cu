// One thread per pair runs the one-row LCS dynamic program in a per-thread array.
constexpr int kMax = 64;

__global__ void lcs_kernel(int pairs, const int* a_off, const int* b_off, const unsigned char* text, int* lcs) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const unsigned char* s = text + a_off[p];
    const unsigned char* t = text + b_off[p];
    const int m = a_off[p + 1] - a_off[p], n = b_off[p + 1] - b_off[p];
    int row[kMax + 1];
    for (int j = 0; j <= n; ++j) row[j] = 0;
    for (int i = 1; i <= m; ++i) {
        int diag = 0;
        for (int j = 1; j <= n; ++j) {
            int up = row[j];
            row[j] = s[i - 1] == t[j - 1] ? diag + 1 : max(up, row[j - 1]);
            diag = up;
        }
    }
    lcs[p] = row[n];
}

void lcs_pairs(int pairs, int chars, const int* a_off, const int* b_off, const unsigned char* text, int* lcs) {
    (void)chars;
    if (pairs <= 0) return;
    lcs_kernel<<<(pairs + 127) / 128, 128>>>(pairs, a_off, b_off, text, lcs);
}
