__global__ void sin_series_kernel(int n, int k, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double s = 0.0;
    for (int j = 1; j <= k; ++j) s += sin(j * static_cast<double>(x[i])) / j;
    out[i] = static_cast<float>(s);
}

void sin_series(int n, int k, const float* x, float* out) {
    if (n > 0) sin_series_kernel<<<(n + 255) / 256, 256>>>(n, k, x, out);
}
