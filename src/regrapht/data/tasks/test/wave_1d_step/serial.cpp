void wave_1d_step(int n, const float* u, const float* u_prev, const float* courant2, float damping,
                  float* u_next) {
    for (int i = 0; i < n; ++i) {
        if (i == 0 || i == n - 1) {
            u_next[i] = 0.0f;
            continue;
        }
        float lap = u[i - 1] - 2.0f * u[i] + u[i + 1];
        float velocity = u[i] - u_prev[i];
        u_next[i] = u[i] + velocity + courant2[i] * lap - damping * velocity;
    }
}
