void pattern_count_blocks(int n, int m, int block, const unsigned char* text, const unsigned char* pattern,
                          int* counts) {
    const int blocks = (n + block - 1) / block;
    for (int b = 0; b < blocks; ++b) counts[b] = 0;
    for (int i = 0; i + m <= n; ++i) {
        int k = 0;
        while (k < m && text[i + k] == pattern[k]) ++k;
        if (k == m) counts[i / block] += 1;
    }
}
