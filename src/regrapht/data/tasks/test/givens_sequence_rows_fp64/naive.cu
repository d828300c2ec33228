// One thread per row: the rotations of a row are sequential, the rows are independent.
__global__ void rotate_row_per_thread(int m, int n, const double* c, const double* s, const double* A, double* B) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    const double* a = A + (long long)r * n;
    double* b = B + (long long)r * n;
    for (int j = 0; j < n; ++j) b[j] = a[j];
    for (int j = 0; j + 1 < n; ++j) {
        double t = b[j + 1];
        b[j + 1] = c[j] * t - s[j] * b[j];
        b[j] = s[j] * t + c[j] * b[j];
    }
}

void givens_sequence_rows_fp64(int m, int n, const double* c, const double* s, const double* A, double* B) {
    if (m <= 0 || n <= 0) return;
    rotate_row_per_thread<<<(m + 127) / 128, 128>>>(m, n, c, s, A, B);
}
