void redblack_gauss_seidel_fp64(int nx, int ny, int sweeps, const double* f, const double* u0, double* u,
                                double* work) {
    (void)work;
    const long long n = static_cast<long long>(nx) * ny;
    for (long long k = 0; k < n; ++k) u[k] = u0[k];
    for (int s = 0; s < sweeps; ++s) {
        for (int color = 0; color < 2; ++color) {
            for (int j = 0; j < ny; ++j) {
                for (int i = (j + color) % 2; i < nx; i += 2) {
                    const long long k = static_cast<long long>(j) * nx + i;
                    const double west = i > 0 ? u[k - 1] : 0.0;
                    const double east = i + 1 < nx ? u[k + 1] : 0.0;
                    const double north = j > 0 ? u[k - nx] : 0.0;
                    const double south = j + 1 < ny ? u[k + nx] : 0.0;
                    u[k] = 0.25 * (f[k] + west + east + north + south);
                }
            }
        }
    }
}
