void curl_3d(int nx, int ny, int nz, float inv_2h, const float* u, const float* v, const float* w, float* cx,
             float* cy, float* cz) {
    const long long sy = nx, sz = static_cast<long long>(nx) * ny;
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                long long p = i + sy * j + sz * k;
                if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
                    cx[p] = cy[p] = cz[p] = 0.0f;
                    continue;
                }
                float dw_dy = (w[p + sy] - w[p - sy]) * inv_2h;
                float dv_dz = (v[p + sz] - v[p - sz]) * inv_2h;
                float du_dz = (u[p + sz] - u[p - sz]) * inv_2h;
                float dw_dx = (w[p + 1] - w[p - 1]) * inv_2h;
                float dv_dx = (v[p + 1] - v[p - 1]) * inv_2h;
                float du_dy = (u[p + sy] - u[p - sy]) * inv_2h;
                cx[p] = dw_dy - dv_dz;
                cy[p] = du_dz - dw_dx;
                cz[p] = dv_dx - du_dy;
            }
        }
    }
}
