#include <algorithm>

void levenshtein_pairs(int pairs, const unsigned char* a, const int* a_len, const unsigned char* b,
                       const int* b_len, int* distance) {
    constexpr int kSlot = 32;
    int row[kSlot + 1];
    for (int p = 0; p < pairs; ++p) {
        const unsigned char* s = a + static_cast<long long>(p) * kSlot;
        const unsigned char* t = b + static_cast<long long>(p) * kSlot;
        const int m = a_len[p], n = b_len[p];
        for (int j = 0; j <= n; ++j) row[j] = j;
        for (int i = 1; i <= m; ++i) {
            int diag = row[0];
            row[0] = i;
            for (int j = 1; j <= n; ++j) {
                int up = row[j];
                int cost = s[i - 1] == t[j - 1] ? 0 : 1;
                row[j] = std::min({up + 1, row[j - 1] + 1, diag + cost});
                diag = up;
            }
        }
        distance[p] = row[n];
    }
}
