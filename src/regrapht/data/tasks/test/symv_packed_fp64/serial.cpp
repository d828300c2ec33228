void symv_packed_fp64(int n, const double* ap, const double* x, double* y) {
    for (int i = 0; i < n; ++i) y[i] = 0.0;
    // Each stored A[i][j] (j <= i) is read once and used for row i and, off the diagonal, row j.
    for (int i = 0; i < n; ++i) {
        const double* row = ap + static_cast<long long>(i) * (i + 1) / 2;
        double acc = 0.0;
        for (int j = 0; j < i; ++j) {
            acc += row[j] * x[j];
            y[j] += row[j] * x[i];
        }
        y[i] += acc + row[i] * x[i];
    }
}
