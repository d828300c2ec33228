__global__ void syr_lower_kernel(int n, float alpha, const float* x, float* A) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j > i) return;
    A[(long long)i * n + j] += alpha * x[i] * x[j];
}

void syr_lower(int n, float alpha, const float* x, float* A) {
    if (n <= 0) return;
    dim3 block(32, 8);
    dim3 grid((n + 31) / 32, (n + 7) / 8);
    syr_lower_kernel<<<grid, block>>>(n, alpha, x, A);
}
