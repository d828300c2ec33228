__global__ void nbody_kernel(int n, const float* bodies, float eps2, float* accel, float* potential) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = bodies[4 * i], yi = bodies[4 * i + 1], zi = bodies[4 * i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f, phi = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = bodies[4 * j] - xi;
        float dy = bodies[4 * j + 1] - yi;
        float dz = bodies[4 * j + 2] - zi;
        float m = bodies[4 * j + 3];
        float r2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv_r = 1.0f / sqrtf(r2);
        float m_inv_r3 = m * inv_r * inv_r * inv_r;
        ax += m_inv_r3 * dx;
        ay += m_inv_r3 * dy;
        az += m_inv_r3 * dz;
        phi -= m * inv_r;
    }
    accel[3 * i] = ax;
    accel[3 * i + 1] = ay;
    accel[3 * i + 2] = az;
    potential[i] = phi;
}

void nbody_softened(int n, const float* bodies, float eps2, float* accel, float* potential) {
    if (n <= 0) return;
    nbody_kernel<<<(n + 63) / 64, 64>>>(n, bodies, eps2, accel, potential);
}
