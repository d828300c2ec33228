#include <cmath>

static double normal_cdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }

void black_scholes_eu(int n, const float* spot, const float* strike, const float* years, const float* vol,
                      float rate, float* call, float* put) {
    for (int i = 0; i < n; ++i) {
        double s = spot[i], k = strike[i], t = years[i], v = vol[i], r = rate;
        double v_sqrt_t = v * std::sqrt(t);
        double d1 = (std::log(s / k) + (r + 0.5 * v * v) * t) / v_sqrt_t;
        double d2 = d1 - v_sqrt_t;
        double discounted_strike = k * std::exp(-r * t);
        call[i] = static_cast<float>(s * normal_cdf(d1) - discounted_strike * normal_cdf(d2));
        put[i] = static_cast<float>(discounted_strike * normal_cdf(-d2) - s * normal_cdf(-d1));
    }
}
