// One thread per row: row i is its stored part A[i][0..i] followed by the column A[i+1..n-1][i].
__global__ void spmv_row_per_thread(int n, const double* ap, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* row = ap + (long long)i * (i + 1) / 2;
    double acc = 0.0;
    for (int j = 0; j <= i; ++j) acc += row[j] * x[j];
    for (int j = i + 1; j < n; ++j) acc += ap[(long long)j * (j + 1) / 2 + i] * x[j];
    y[i] = acc;
}

void symv_packed_fp64(int n, const double* ap, const double* x, double* y) {
    if (n <= 0) return;
    spmv_row_per_thread<<<(n + 63) / 64, 64>>>(n, ap, x, y);
}
