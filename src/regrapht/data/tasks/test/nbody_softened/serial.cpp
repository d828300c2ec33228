#include <cmath>

void nbody_softened(int n, const float* bodies, float eps2, float* accel, float* potential) {
    for (int i = 0; i < n; ++i) {
        const double xi = bodies[4 * i], yi = bodies[4 * i + 1], zi = bodies[4 * i + 2];
        double ax = 0.0, ay = 0.0, az = 0.0, phi = 0.0;
        for (int j = 0; j < n; ++j) {
            if (j == i) continue;
            const double dx = bodies[4 * j] - xi;
            const double dy = bodies[4 * j + 1] - yi;
            const double dz = bodies[4 * j + 2] - zi;
            const double m = bodies[4 * j + 3];
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            const double inv_r = 1.0 / std::sqrt(r2);
            const double m_inv_r3 = m * inv_r * inv_r * inv_r;
            ax += m_inv_r3 * dx;
            ay += m_inv_r3 * dy;
            az += m_inv_r3 * dz;
            phi -= m * inv_r;
        }
        accel[3 * i] = static_cast<float>(ax);
        accel[3 * i + 1] = static_cast<float>(ay);
        accel[3 * i + 2] = static_cast<float>(az);
        potential[i] = static_cast<float>(phi);
    }
}
