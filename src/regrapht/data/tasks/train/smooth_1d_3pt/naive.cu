__global__ void smooth_kernel(int n, const float* x, float w_side, float w_mid, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (n == 1) {
        y[0] = x[0];
        return;
    }
    float left = (i > 0) ? x[i - 1] : x[1];
    float right = (i < n - 1) ? x[i + 1] : x[n - 2];
    y[i] = w_side * left + w_mid * x[i] + w_side * right;
}

void smooth_1d_3pt(int n, const float* x, float w_side, float* y) {
    if (n <= 0) return;
    float w_mid = 1.0f - 2.0f * w_side;
    smooth_kernel<<<(n + 255) / 256, 256>>>(n, x, w_side, w_mid, y);
}
