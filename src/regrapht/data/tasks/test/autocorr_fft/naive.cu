// One thread per (signal, lag): the direct sum over the overlapping samples.
__global__ void autocorr_direct(int batch, int n, int lags, const float* x, float* r) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * lags) return;
    const long long b = idx / lags;
    const int k = (int)(idx - b * lags);
    const float* s = x + b * n;
    float acc = 0.0f;
    for (int i = 0; i + k < n; ++i) acc = fmaf(s[i], s[i + k], acc);
    r[idx] = acc;
}

void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    const long long total = (long long)batch * lags;
    if (total > 0) autocorr_direct<<<(unsigned)((total + 255) / 256), 256>>>(batch, n, lags, x, r);
}
