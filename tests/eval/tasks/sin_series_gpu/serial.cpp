#include <cmath>

void sin_series(int n, int k, const float* x, float* out) {
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 1; j <= k; ++j) s += std::sin(j * static_cast<double>(x[i])) / j;
        out[i] = static_cast<float>(s);
    }
}
