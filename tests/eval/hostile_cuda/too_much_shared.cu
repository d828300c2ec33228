// Asks for 1 MiB of shared memory per block: the launch fails and nobody checks.
__global__ void k(int n, float a, const float* x, float* out) {
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { tile[threadIdx.x] = x[i]; out[i] = a * tile[threadIdx.x]; }
}
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    if (n > 0) k<<<(n + 255) / 256, 256, 1 << 20>>>(n, a, x, out);
}
