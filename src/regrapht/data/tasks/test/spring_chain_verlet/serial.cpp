#include <vector>

void spring_chain_verlet(int n, int steps, const double* stiffness, const double* mass, double dt, const double* x0,
                         const double* v0, double* x, double* v) {
    std::vector<double> a(n);
    for (int i = 0; i < n; ++i) {
        x[i] = x0[i];
        v[i] = v0[i];
    }
    auto accel = [&](int i) {
        const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < n ? x[i + 1] : 0.0;
        return (stiffness[i] * (left - x[i]) + stiffness[i + 1] * (right - x[i])) / mass[i];
    };
    for (int i = 0; i < n; ++i) a[i] = accel(i);
    const double half = 0.5 * dt;
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < n; ++i) {
            v[i] += half * a[i];
            x[i] += dt * v[i];
        }
        for (int i = 0; i < n; ++i) {
            a[i] = accel(i);
            v[i] += half * a[i];
        }
    }
}
