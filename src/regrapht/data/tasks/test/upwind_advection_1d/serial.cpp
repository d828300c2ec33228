void upwind_advection_1d(int n, const float* u, const float* courant, float* u_next) {
    for (int i = 0; i < n; ++i) {
        int left = i == 0 ? n - 1 : i - 1;
        int right = i == n - 1 ? 0 : i + 1;
        float c = courant[i];
        float gradient = c >= 0.0f ? u[i] - u[left] : u[right] - u[i];
        u_next[i] = u[i] - c * gradient;
    }
}
