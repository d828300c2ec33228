void jacobi_2d(int ny, int nx, const float* u, const float* f, float h2, float* u_new) {
    for (int y = 0; y < ny; ++y) {
        for (int x = 0; x < nx; ++x) {
            int i = y * nx + x;
            if (y == 0 || x == 0 || y == ny - 1 || x == nx - 1) {
                u_new[i] = u[i];
            } else {
                u_new[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - h2 * f[i]);
            }
        }
    }
}
