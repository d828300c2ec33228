// One thread per matrix: the serial Gauss-Jordan elimination on [A | I], with the copy of A in work.
__global__ void gauss_jordan_per_thread(int batch, int n, const double* A, double* Ainv, double* work) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    long long o = (long long)k * n * n;
    double* a = work + o;
    double* inv = Ainv + o;
    for (int i = 0; i < n * n; ++i) {
        a[i] = A[o + i];
        inv[i] = (i / n == i % n) ? 1.0 : 0.0;
    }
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r) {
            if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
        }
        if (p != c) {
            for (int j = 0; j < n; ++j) {
                double t = a[c * n + j];
                a[c * n + j] = a[p * n + j];
                a[p * n + j] = t;
                t = inv[c * n + j];
                inv[c * n + j] = inv[p * n + j];
                inv[p * n + j] = t;
            }
        }
        double pivot = a[c * n + c];
        for (int j = 0; j < n; ++j) {
            a[c * n + j] /= pivot;
            inv[c * n + j] /= pivot;
        }
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            double f = a[r * n + c];
            for (int j = 0; j < n; ++j) {
                a[r * n + j] -= f * a[c * n + j];
                inv[r * n + j] -= f * inv[c * n + j];
            }
        }
    }
}

void batched_inverse_gj_fp64(int batch, int n, const double* A, double* Ainv, double* work) {
    if (batch <= 0 || n <= 0) return;
    gauss_jordan_per_thread<<<(batch + 127) / 128, 128>>>(batch, n, A, Ainv, work);
}
