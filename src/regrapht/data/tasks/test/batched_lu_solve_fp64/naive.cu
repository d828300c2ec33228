// One thread per system: interchanges, forward and back substitution, working in x.
__global__ void getrs_per_thread(int batch, int n, const double* LU, const int* piv, const double* b, double* x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    const double* f = LU + (long long)k * n * n;
    const int* p = piv + (long long)k * n;
    double* v = x + (long long)k * n;
    for (int i = 0; i < n; ++i) v[i] = b[(long long)k * n + i];
    for (int r = 0; r < n; ++r) {
        int q = p[r] - 1;
        double t = v[r];
        v[r] = v[q];
        v[q] = t;
    }
    for (int j = 0; j < n; ++j) {
        for (int i = j + 1; i < n; ++i) v[i] -= f[j * n + i] * v[j];
    }
    for (int j = n - 1; j >= 0; --j) {
        v[j] /= f[j * n + j];
        for (int i = 0; i < j; ++i) v[i] -= f[j * n + i] * v[j];
    }
}

void batched_lu_solve_fp64(int batch, int n, const double* LU, const int* piv, const double* b, double* x) {
    if (batch <= 0 || n <= 0) return;
    getrs_per_thread<<<(batch + 127) / 128, 128>>>(batch, n, LU, piv, b, x);
}
