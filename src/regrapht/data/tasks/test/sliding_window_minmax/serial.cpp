void sliding_window_minmax(int rows, int n, int win, const float* x, float* lo, float* hi) {
    for (int r = 0; r < rows; ++r) {
        const float* row = x + static_cast<long long>(r) * n;
        for (int i = 0; i < n; ++i) {
            int start = i - win + 1 < 0 ? 0 : i - win + 1;
            float mn = row[start], mx = row[start];
            for (int k = start + 1; k <= i; ++k) {
                mn = row[k] < mn ? row[k] : mn;
                mx = row[k] > mx ? row[k] : mx;
            }
            lo[static_cast<long long>(r) * n + i] = mn;
            hi[static_cast<long long>(r) * n + i] = mx;
        }
    }
}
