// For each particle, visit the (up to) 27 cells around its own and sum the poly6 kernel over the
// particles there within unit distance; accumulated in double.
static int cell_of(float v, int G) {
    int c = static_cast<int>(v);
    return c < 0 ? 0 : (c >= G ? G - 1 : c);
}

void sph_density_cells(int G, int n, const float* px, const float* py, const float* pz, const int* cell_start,
                       float* rho) {
    const double coef = 315.0 / (64.0 * 3.14159265358979323846);
    for (int i = 0; i < n; ++i) {
        const int cx = cell_of(px[i], G), cy = cell_of(py[i], G), cz = cell_of(pz[i], G);
        double sum = 0.0;
        for (int z = cz - 1; z <= cz + 1; ++z) {
            if (z < 0 || z >= G) continue;
            for (int y = cy - 1; y <= cy + 1; ++y) {
                if (y < 0 || y >= G) continue;
                for (int x = cx - 1; x <= cx + 1; ++x) {
                    if (x < 0 || x >= G) continue;
                    const int c = (z * G + y) * G + x;
                    for (int j = cell_start[c]; j < cell_start[c + 1]; ++j) {
                        const float dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
                        const float r2 = dx * dx + dy * dy + dz * dz;
                        if (r2 < 1.0f) {
                            const double q = 1.0 - r2;
                            sum += q * q * q;
                        }
                    }
                }
            }
        }
        rho[i] = static_cast<float>(coef * sum);
    }
}
