__global__ void spmv_ell_kernel(int rows, int width, const int* ell_cols, const float* ell_vals, const float* x, float* y) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int s = 0; s < width; ++s) {
        long long slot = (long long)s * rows + r;
        int c = ell_cols[slot];
        if (c < 0) break;
        sum += ell_vals[slot] * x[c];
    }
    y[r] = sum;
}

void spmv_ell(int rows, int cols, int width, const int* ell_cols, const float* ell_vals, const float* x, float* y) {
    if (rows <= 0) return;
    spmv_ell_kernel<<<(rows + 255) / 256, 256>>>(rows, width, ell_cols, ell_vals, x, y);
}
