#include <algorithm>
#include <vector>

void smith_waterman_affine(int pairs, int m, int n, const unsigned char* a, const unsigned char* b, int* score,
                           int* end_i, int* end_j) {
    constexpr int kMatch = 2, kMismatch = -3, kOpen = 5, kExtend = 2;
    constexpr int kNegInf = -(1 << 28);
    std::vector<int> h_row(n + 1), f_row(n + 1);
    for (int p = 0; p < pairs; ++p) {
        const unsigned char* s = a + static_cast<long long>(p) * m;
        const unsigned char* t = b + static_cast<long long>(p) * n;
        std::fill(h_row.begin(), h_row.end(), 0);
        std::fill(f_row.begin(), f_row.end(), kNegInf);
        int best = 0, bi = 0, bj = 0;
        for (int i = 1; i <= m; ++i) {
            int diag = 0;          // H(i-1, j-1)
            int left = 0;          // H(i, j-1)
            int e = kNegInf;       // E(i, j-1)
            for (int j = 1; j <= n; ++j) {
                e = std::max(e - kExtend, left - kOpen);
                const int f = std::max(f_row[j] - kExtend, h_row[j] - kOpen);
                const int sub = s[i - 1] == t[j - 1] ? kMatch : kMismatch;
                const int h = std::max({0, diag + sub, e, f});
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
}
