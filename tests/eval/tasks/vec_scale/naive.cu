__global__ void vec_scale_kernel(int n, float a, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i];
}
void vec_scale(int n, float a, const float* x, float* out) {
    if (n > 0) vec_scale_kernel<<<(n + 255) / 256, 256>>>(n, a, x, out);
}
