// One thread per particle, walking the 27 neighbour cells as the serial loop does.
__device__ int cell_of(float v, int G) {
    int c = (int)v;
    return c < 0 ? 0 : (c >= G ? G - 1 : c);
}

__global__ void sph_density_naive(int G, int n, const float* px, const float* py, const float* pz,
                                  const int* cell_start, float* rho) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = px[i], yi = py[i], zi = pz[i];
    int cx = cell_of(xi, G), cy = cell_of(yi, G), cz = cell_of(zi, G);
    float sum = 0.0f;
    for (int z = cz - 1; z <= cz + 1; ++z) {
        if (z < 0 || z >= G) continue;
        for (int y = cy - 1; y <= cy + 1; ++y) {
            if (y < 0 || y >= G) continue;
            for (int x = cx - 1; x <= cx + 1; ++x) {
                if (x < 0 || x >= G) continue;
                int c = (z * G + y) * G + x;
                for (int j = cell_start[c]; j < cell_start[c + 1]; ++j) {
                    float dx = xi - px[j], dy = yi - py[j], dz = zi - pz[j];
                    float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < 1.0f) {
                        float q = 1.0f - r2;
                        sum += q * q * q;
                    }
                }
            }
        }
    }
    rho[i] = 1.5666814f * sum;  // 315 / (64 pi)
}

void sph_density_cells(int G, int n, const float* px, const float* py, const float* pz, const int* cell_start,
                       float* rho) {
    if (n <= 0) return;
    sph_density_naive<<<(n + 255) / 256, 256>>>(G, n, px, py, pz, cell_start, rho);
}
