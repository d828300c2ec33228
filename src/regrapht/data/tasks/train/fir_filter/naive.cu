__global__ void fir_kernel(int n, int taps, const float* x, const float* h, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int kmax = (i + 1 < taps) ? i + 1 : taps;
    float acc = 0.0f;
    for (int k = 0; k < kmax; ++k) acc += h[k] * x[i - k];
    y[i] = acc;
}

void fir_filter(int n, int taps, const float* x, const float* h, float* y) {
    if (n <= 0) return;
    fir_kernel<<<(n + 255) / 256, 256>>>(n, taps, x, h, y);
}
