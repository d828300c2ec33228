// One thread per atom walking its own neighbour list.
__global__ void lj_kernel(int n, int max_neigh, const float* x, const float* y, const float* z, const int* neigh_count,
                          const int* neigh, float eps, float sigma2, float rc2, float* energy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float s2c = sigma2 / rc2, s6c = s2c * s2c * s2c;
    const float shift = s6c * s6c - s6c;
    double sum = 0.0;
    for (int k = 0; k < neigh_count[i]; ++k) {
        int j = neigh[(long long)i * max_neigh + k];
        float dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= rc2) continue;
        float s2 = sigma2 / r2;
        float s6 = s2 * s2 * s2;
        sum += 4.0f * eps * ((s6 * s6 - s6) - shift);
    }
    energy[i] = (float)sum;
}

void lj_neighbor_energy(int n, int max_neigh, const float* x, const float* y, const float* z, const int* neigh_count,
                        const int* neigh, float eps, float sigma2, float rc2, float* energy) {
    if (n <= 0) return;
    lj_kernel<<<(n + 255) / 256, 256>>>(n, max_neigh, x, y, z, neigh_count, neigh, eps, sigma2, rc2, energy);
}
