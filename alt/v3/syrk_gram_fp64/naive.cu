// One thread per element of the lower triangle (j <= i), which it also mirrors into the upper one.
__global__ void gram_element(int n, int k, const double* A, double* C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j > i) return;
    const double* ai = A + (long long)i * k;
    const double* aj = A + (long long)j * k;
    double s = 0.0;
    for (int p = 0; p < k; ++p) s += ai[p] * aj[p];
    C[(long long)i * n + j] = s;
    C[(long long)j * n + i] = s;
}

void syrk_gram_fp64(int n, int k, const double* A, double* C) {
    if (n <= 0) return;
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    gram_element<<<grid, block>>>(n, k, A, C);
}
