// One thread per element; its row (for the scale) from a division of the flat index.
__global__ void quantize_kernel(int rows, int cols, const float* x, const float* inv_scale, signed char* q) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * cols) return;
    int r = (int)(i / cols);
    float v = rintf(x[i] * inv_scale[r]);
    v = fminf(fmaxf(v, -127.0f), 127.0f);
    q[i] = (signed char)v;
}

void quantize_int8_rows(int rows, int cols, const float* x, const float* inv_scale, signed char* q) {
    long long n = (long long)rows * cols;
    if (n <= 0) return;
    quantize_kernel<<<(unsigned)((n + 255) / 256), 256>>>(rows, cols, x, inv_scale, q);
}
