void acoustic_wave_3d_8th(int nz, int ny, int nx, const float* u, const float* u_prev, const float* vel2,
                          float* u_next) {
    const float c[5] = {-205.0f / 72.0f, 8.0f / 5.0f, -1.0f / 5.0f, 8.0f / 315.0f, -1.0f / 560.0f};
    const int R = 4;
    const long long plane = static_cast<long long>(ny) * nx;
    for (int z = 0; z < nz; ++z) {
        for (int y = 0; y < ny; ++y) {
            for (int x = 0; x < nx; ++x) {
                const long long i = z * plane + static_cast<long long>(y) * nx + x;
                if (x < R || y < R || z < R || x >= nx - R || y >= ny - R || z >= nz - R) {
                    u_next[i] = 0.0f;
                    continue;
                }
                float lap = 3.0f * c[0] * u[i];
                for (int r = 1; r <= R; ++r) {
                    const long long dy = static_cast<long long>(r) * nx, dz = r * plane;
                    lap += c[r] * ((u[i - r] + u[i + r]) + (u[i - dy] + u[i + dy]) + (u[i - dz] + u[i + dz]));
                }
                u_next[i] = 2.0f * u[i] - u_prev[i] + vel2[i] * lap;
            }
        }
    }
}
