#include <algorithm>

void lcs_pairs(int pairs, int chars, const int* a_off, const int* b_off, const unsigned char* text, int* lcs) {
    (void)chars;
    constexpr int kMax = 64;
    int row[kMax + 1];
    for (int p = 0; p < pairs; ++p) {
        const unsigned char* s = text + a_off[p];
        const unsigned char* t = text + b_off[p];
        const int m = a_off[p + 1] - a_off[p], n = b_off[p + 1] - b_off[p];
        for (int j = 0; j <= n; ++j) row[j] = 0;
        for (int i = 1; i <= m; ++i) {
            int diag = 0;  // row[i-1][j-1]
            for (int j = 1; j <= n; ++j) {
                int up = row[j];
                row[j] = s[i - 1] == t[j - 1] ? diag + 1 : std::max(up, row[j - 1]);
                diag = up;
            }
        }
        lcs[p] = row[n];
    }
}
