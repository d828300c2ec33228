// One thread too many writes past the end of the output.
__global__ void k(int n, float a, const float* x, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i];
    if (i == n) out[i] = 1.0f;
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    k<<<(n + 256) / 256, 256>>>(n, a, x, out);
}
