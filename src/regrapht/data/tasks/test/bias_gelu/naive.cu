__global__ void bias_gelu_kernel(int rows, int cols, const float* x, const float* bias, float* y) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * cols) return;
    int c = (int)(idx % cols);
    float v = x[idx] + bias[c];
    y[idx] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

void bias_gelu(int rows, int cols, const float* x, const float* bias, float* y) {
    long long total = (long long)rows * cols;
    if (total <= 0) return;
    bias_gelu_kernel<<<(unsigned)((total + 255) / 256), 256>>>(rows, cols, x, bias, y);
}
