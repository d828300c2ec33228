// Correct, and runs host code on a CUDA driver thread (only a warning in the source screen).
__global__ void vec_scale_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = a * x[i];
}
static void launch(int n, float a, const float* x, float* out) {
    if (n <= 0) return;
    int blocks = (n + 255) / 256;
    vec_scale_kernel<<<blocks < 4096 ? blocks : 4096, 256>>>(n, a, x, out);
}
static void note(void* flag) { *static_cast<volatile int*>(flag) = 1; }
static int flag = 0;
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    launch(n, a, x, out);
    cudaLaunchHostFunc(0, note, &flag);
}
