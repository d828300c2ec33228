#include <cmath>

void moving_correlation(int n, int window, const float* x, const float* y, float* cov, float* corr) {
    const int count = n - window + 1;
    for (int i = 0; i < count; ++i) {
        double mean_x = 0.0, mean_y = 0.0;
        for (int k = 0; k < window; ++k) {
            mean_x += x[i + k];
            mean_y += y[i + k];
        }
        mean_x /= window;
        mean_y /= window;
        double sxy = 0.0, sxx = 0.0, syy = 0.0;
        for (int k = 0; k < window; ++k) {
            double dx = x[i + k] - mean_x;
            double dy = y[i + k] - mean_y;
            sxy += dx * dy;
            sxx += dx * dx;
            syy += dy * dy;
        }
        cov[i] = static_cast<float>(sxy / window);
        double denom = std::sqrt(sxx * syy);
        corr[i] = static_cast<float>(denom > 0.0 ? sxy / denom : 0.0);
    }
}
