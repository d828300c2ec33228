void geam_transpose_fp64(int m, int n, double alpha, const double* A, double beta, const double* B, double* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            const long long ij = static_cast<long long>(i) * n + j;
            // B is n x m: B^T[i][j] is B[j][i]
            C[ij] = alpha * A[ij] + beta * B[static_cast<long long>(j) * m + i];
        }
    }
}
