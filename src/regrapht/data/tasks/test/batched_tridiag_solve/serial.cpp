#include <vector>

void batched_tridiag_solve(int batch, int n, const float* dl, const float* d, const float* du, const float* b,
                           float* x, float* work) {
    (void)work;
    std::vector<double> cp(n), dp(n);
    for (int k = 0; k < batch; ++k) {
        const long long o = static_cast<long long>(k) * n;
        // Thomas algorithm in double: forward elimination, then back substitution.
        double den = d[o];
        cp[0] = du[o] / den;
        dp[0] = b[o] / den;
        for (int i = 1; i < n; ++i) {
            den = d[o + i] - dl[o + i] * cp[i - 1];
            cp[i] = du[o + i] / den;
            dp[i] = (b[o + i] - dl[o + i] * dp[i - 1]) / den;
        }
        double next = dp[n - 1];
        x[o + n - 1] = static_cast<float>(next);
        for (int i = n - 2; i >= 0; --i) {
            next = dp[i] - cp[i] * next;
            x[o + i] = static_cast<float>(next);
        }
    }
}
