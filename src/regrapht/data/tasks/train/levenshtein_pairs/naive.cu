// One thread per pair runs the two-row dynamic program in a per-thread array.
constexpr int kSlot = 32;

__global__ void levenshtein_kernel(int pairs, const unsigned char* a, const int* a_len, const unsigned char* b,
                                   const int* b_len, int* distance) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const unsigned char* s = a + static_cast<long long>(p) * kSlot;
    const unsigned char* t = b + static_cast<long long>(p) * kSlot;
    const int m = a_len[p], n = b_len[p];
    int row[kSlot + 1];
    for (int j = 0; j <= n; ++j) row[j] = j;
    for (int i = 1; i <= m; ++i) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= n; ++j) {
            int up = row[j];
            int cost = s[i - 1] == t[j - 1] ? 0 : 1;
            row[j] = min(min(up + 1, row[j - 1] + 1), diag + cost);
            diag = up;
        }
    }
    distance[p] = row[n];
}

void levenshtein_pairs(int pairs, const unsigned char* a, const int* a_len, const unsigned char* b,
                       const int* b_len, int* distance) {
    if (pairs <= 0) return;
    levenshtein_kernel<<<(pairs + 127) / 128, 128>>>(pairs, a, a_len, b, b_len, distance);
}
