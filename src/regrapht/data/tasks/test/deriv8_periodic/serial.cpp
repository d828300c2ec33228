void deriv8_periodic(int n, const float* u, float inv_h, float* du) {
    static const float coeff[4] = {4.0f / 5.0f, -1.0f / 5.0f, 4.0f / 105.0f, -1.0f / 280.0f};
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        if (i >= 4 && i < n - 4) {
            for (int k = 1; k <= 4; ++k) acc += coeff[k - 1] * (u[i + k] - u[i - k]);
        } else {
            // near the ends the neighbours wrap around the periodic domain
            for (int k = 1; k <= 4; ++k) {
                int ip = (i + k) % n;
                int im = ((i - k) % n + n) % n;
                acc += coeff[k - 1] * (u[ip] - u[im]);
            }
        }
        du[i] = acc * inv_h;
    }
}
