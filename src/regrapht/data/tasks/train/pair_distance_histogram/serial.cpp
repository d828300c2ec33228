void pair_distance_histogram(int n, int nbins, int r2max, const int* px, const int* py, const int* pz,
                             unsigned long long* hist) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const long long dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
            const long long d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < r2max) ++hist[d2 * nbins / r2max];
        }
}
