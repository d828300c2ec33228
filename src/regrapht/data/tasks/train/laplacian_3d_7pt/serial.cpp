void laplacian_3d_7pt(int nz, int ny, int nx, const float* u, float inv_h2, float* lap) {
    const long long plane = static_cast<long long>(ny) * nx;
    for (int z = 0; z < nz; ++z) {
        for (int y = 0; y < ny; ++y) {
            for (int x = 0; x < nx; ++x) {
                long long i = z * plane + static_cast<long long>(y) * nx + x;
                float c = u[i];
                float xm = (x > 0) ? u[i - 1] : c;
                float xp = (x < nx - 1) ? u[i + 1] : c;
                float ym = (y > 0) ? u[i - nx] : c;
                float yp = (y < ny - 1) ? u[i + nx] : c;
                float zm = (z > 0) ? u[i - plane] : c;
                float zp = (z < nz - 1) ? u[i + plane] : c;
                lap[i] = ((xm + xp) + (ym + yp) + (zm + zp) - 6.0f * c) * inv_h2;
            }
        }
    }
}
