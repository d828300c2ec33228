__global__ void sum_of_squares_kernel(int n, const float* x, float* result) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(result, x[i] * x[i]);
}

void sum_of_squares(int n, const float* x, float* result) {
    cudaMemset(result, 0, sizeof(float));
    if (n <= 0) return;
    sum_of_squares_kernel<<<(n + 255) / 256, 256>>>(n, x, result);
}
