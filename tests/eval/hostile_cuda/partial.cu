// Writes only the first half of the output.
__global__ void k(int n, float a, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2 + (n == 1)) out[i] = a * x[i];
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    if (n > 0) k<<<(n + 255) / 256, 256>>>(n, a, x, out);
}
