#include <cmath>

static void central_accel(float gm, float eps2, float px, float py, float pz, float& ax, float& ay, float& az) {
    float r2 = px * px + py * py + pz * pz + eps2;
    float scale = -gm / (r2 * std::sqrt(r2));
    ax = scale * px;
    ay = scale * py;
    az = scale * pz;
}

void kepler_leapfrog(int n, int steps, float dt, float gm, float eps2, const float* x, const float* y, const float* z,
                     const float* vx, const float* vy, const float* vz, float* x_out, float* y_out, float* z_out,
                     float* vx_out, float* vy_out, float* vz_out) {
    float half = 0.5f * dt;
    for (int i = 0; i < n; ++i) {
        float px = x[i], py = y[i], pz = z[i];
        float ux = vx[i], uy = vy[i], uz = vz[i];
        float ax, ay, az;
        central_accel(gm, eps2, px, py, pz, ax, ay, az);
        for (int s = 0; s < steps; ++s) {
            ux += half * ax;
            uy += half * ay;
            uz += half * az;
            px += dt * ux;
            py += dt * uy;
            pz += dt * uz;
            central_accel(gm, eps2, px, py, pz, ax, ay, az);
            ux += half * ax;
            uy += half * ay;
            uz += half * az;
        }
        x_out[i] = px;
        y_out[i] = py;
        z_out[i] = pz;
        vx_out[i] = ux;
        vy_out[i] = uy;
        vz_out[i] = uz;
    }
}
