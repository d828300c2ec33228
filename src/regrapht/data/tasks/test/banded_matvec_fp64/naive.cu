// One thread per row: each thread walks its own row of the band storage.
__global__ void band_row_per_thread(int n, int kl, int ku, const double* ab, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int w = kl + ku + 1;
    const double* band = ab + (long long)i * w;
    int lo = i - kl > 0 ? i - kl : 0;
    int hi = i + ku < n - 1 ? i + ku : n - 1;
    double acc = 0.0;
    for (int j = lo; j <= hi; ++j) acc += band[j - i + kl] * x[j];
    y[i] = acc;
}

void banded_matvec_fp64(int n, int kl, int ku, const double* ab, const double* x, double* y) {
    if (n <= 0) return;
    band_row_per_thread<<<(n + 255) / 256, 256>>>(n, kl, ku, ab, x, y);
}
