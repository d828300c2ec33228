__global__ void transpose_kernel(int rows, int cols, const float* in, float* out) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

void transpose(int rows, int cols, const float* in, float* out) {
    if (rows <= 0 || cols <= 0) return;
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    transpose_kernel<<<grid, block>>>(rows, cols, in, out);
}
