#include <cmath>
#include <vector>

// EM in double: E-step densities and responsibilities per sample, M-step sums over all samples
// (the variance in a second pass around the new means).
void gmm_em_1d(int n, int k, int iters, const float* x, const float* init_w, const float* init_mu, const float* init_var,
               float* w, float* mu, float* var, float* loglik, double* work) {
    (void)work;
    const double two_pi = 2.0 * std::acos(-1.0);
    std::vector<double> cw(init_w, init_w + k), cm(init_mu, init_mu + k), cv(init_var, init_var + k);
    std::vector<double> r(static_cast<size_t>(n) * k), mass(k), first(k), second(k), p(k);
    for (int t = 0; t < iters; ++t) {
        double ll = 0.0;
        for (int j = 0; j < k; ++j) mass[j] = first[j] = second[j] = 0.0;
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < k; ++j) {
                const double d = x[i] - cm[j];
                p[j] = cw[j] / std::sqrt(two_pi * cv[j]) * std::exp(-d * d / (2.0 * cv[j]));
                s += p[j];
            }
            ll += std::log(s);
            for (int j = 0; j < k; ++j) {
                const double rij = p[j] / s;
                r[static_cast<size_t>(i) * k + j] = rij;
                mass[j] += rij;
                first[j] += rij * x[i];
            }
        }
        loglik[t] = static_cast<float>(ll);
        for (int j = 0; j < k; ++j) cm[j] = first[j] / mass[j];
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < k; ++j) {
                const double d = x[i] - cm[j];
                second[j] += r[static_cast<size_t>(i) * k + j] * d * d;
            }
        for (int j = 0; j < k; ++j) {
            cw[j] = mass[j] / n;
            cv[j] = std::fmax(second[j] / mass[j], 1e-6);
        }
    }
    for (int j = 0; j < k; ++j) {
        w[j] = static_cast<float>(cw[j]);
        mu[j] = static_cast<float>(cm[j]);
        var[j] = static_cast<float>(cv[j]);
    }
}
