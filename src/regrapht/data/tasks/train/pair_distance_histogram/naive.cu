// One thread per point i, pairing it with every j > i and counting each pair in range with a global
// atomic increment.
__global__ void pair_hist_naive(int n, int nbins, int r2max, const int* px, const int* py, const int* pz,
                                unsigned long long* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int xi = px[i], yi = py[i], zi = pz[i];
    for (int j = i + 1; j < n; ++j) {
        long long dx = xi - px[j], dy = yi - py[j], dz = zi - pz[j];
        long long d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < r2max) atomicAdd(&hist[d2 * nbins / r2max], 1ULL);
    }
}

void pair_distance_histogram(int n, int nbins, int r2max, const int* px, const int* py, const int* pz,
                             unsigned long long* hist) {
    if (n <= 0) return;
    pair_hist_naive<<<(n + 255) / 256, 256>>>(n, nbins, r2max, px, py, pz, hist);
}
