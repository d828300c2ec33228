void lj_neighbor_energy(int n, int max_neigh, const float* x, const float* y, const float* z, const int* neigh_count,
                        const int* neigh, float eps, float sigma2, float rc2, float* energy) {
    // V(rc2) / (4 eps): subtracting it makes the potential continuous at the cutoff
    const float s2c = sigma2 / rc2, s6c = s2c * s2c * s2c;
    const float shift = s6c * s6c - s6c;
    for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int k = 0; k < neigh_count[i]; ++k) {
            int j = neigh[static_cast<long long>(i) * max_neigh + k];
            float dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= rc2) continue;
            float s2 = sigma2 / r2;
            float s6 = s2 * s2 * s2;
            sum += 4.0f * eps * ((s6 * s6 - s6) - shift);
        }
        energy[i] = static_cast<float>(sum);
    }
}
