__global__ void linear_bias_relu_kernel(int M, int N, int K, const float* X, const float* W, const float* bias, float* Y) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    const float* x = X + (long long)i * K;
    const float* w = W + (long long)j * K;
    float sum = 0.0f;
    for (int p = 0; p < K; ++p) sum += x[p] * w[p];
    float v = sum + bias[j];
    Y[(long long)i * N + j] = v > 0.0f ? v : 0.0f;
}

void linear_bias_relu(int M, int N, int K, const float* X, const float* W, const float* bias, float* Y) {
    if (M <= 0 || N <= 0) return;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    linear_bias_relu_kernel<<<grid, block>>>(M, N, K, X, W, bias, Y);
}
