// One thread per right-hand side (a column of B): forward substitution down its column.
__global__ void trsm_column_per_thread(int n, int r, const double* L, const double* B, double* X) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= r) return;
    for (int i = 0; i < n; ++i) {
        double s = B[(long long)i * r + c];
        for (int j = 0; j < i; ++j) s -= L[(long long)i * n + j] * X[(long long)j * r + c];
        X[(long long)i * r + c] = s / L[(long long)i * n + i];
    }
}

void trsm_lower_multi_rhs_fp64(int n, int r, const double* L, const double* B, double* X) {
    if (n <= 0 || r <= 0) return;
    trsm_column_per_thread<<<(r + 63) / 64, 64>>>(n, r, L, B, X);
}
