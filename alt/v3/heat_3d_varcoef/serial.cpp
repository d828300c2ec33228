void heat_3d_varcoef(int nz, int ny, int nx, const float* u, const float* kappa, float r, float* u_new) {
    const long long plane = static_cast<long long>(ny) * nx;
    const long long offsets[6] = {-1, 1, -static_cast<long long>(nx), nx, -plane, plane};
    for (int z = 0; z < nz; ++z) {
        for (int y = 0; y < ny; ++y) {
            for (int x = 0; x < nx; ++x) {
                const long long i = z * plane + static_cast<long long>(y) * nx + x;
                if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
                    u_new[i] = u[i];
                    continue;
                }
                const float c = u[i], kc = kappa[i];
                float flux = 0.0f;
                for (int d = 0; d < 6; ++d) {
                    const long long j = i + offsets[d];
                    flux += 0.5f * (kc + kappa[j]) * (u[j] - c);
                }
                u_new[i] = c + r * flux;
            }
        }
    }
}
