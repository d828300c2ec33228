// One thread per system: the Thomas algorithm, with the modified upper diagonal in work and the
// modified right-hand side in x.
__global__ void thomas_per_thread(int batch, int n, const float* dl, const float* d, const float* du, const float* b,
                                  float* x, float* work) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    long long o = (long long)k * n;
    float den = d[o];
    work[o] = du[o] / den;
    x[o] = b[o] / den;
    for (int i = 1; i < n; ++i) {
        den = d[o + i] - dl[o + i] * work[o + i - 1];
        work[o + i] = du[o + i] / den;
        x[o + i] = (b[o + i] - dl[o + i] * x[o + i - 1]) / den;
    }
    for (int i = n - 2; i >= 0; --i) x[o + i] -= work[o + i] * x[o + i + 1];
}

void batched_tridiag_solve(int batch, int n, const float* dl, const float* d, const float* du, const float* b,
                           float* x, float* work) {
    if (batch <= 0 || n <= 0) return;
    thomas_per_thread<<<(batch + 255) / 256, 256>>>(batch, n, dl, d, du, b, x, work);
}
