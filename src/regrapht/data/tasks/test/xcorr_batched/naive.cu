__global__ void xcorr_kernel(int pairs, int n, int lags, const float* x, const float* y, float* r) {
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y;
    if (l >= lags || p >= pairs) return;
    const float* xp = x + static_cast<long long>(p) * n;
    const float* yp = y + static_cast<long long>(p) * n;
    float acc = 0.0f;
    for (int i = 0; i + l < n; ++i) acc += xp[i] * yp[i + l];
    r[static_cast<long long>(p) * lags + l] = acc / n;
}

void xcorr_batched(int pairs, int n, int lags, const float* x, const float* y, float* r) {
    if (pairs <= 0 || lags <= 0) return;
    dim3 block(128);
    dim3 grid((lags + 127) / 128, pairs);
    xcorr_kernel<<<grid, block>>>(pairs, n, lags, x, y, r);
}
