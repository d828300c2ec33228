// Chebyshev series evaluation by the Clenshaw recurrence, e.g. a fitted equation-of-state table.
void chebyshev_eval(int n, int terms, float lo, float hi, const float* coeffs, const float* x, float* fx) {
    for (int i = 0; i < n; ++i) {
        const float t = (2.0f * x[i] - lo - hi) / (hi - lo);
        const float two_t = 2.0f * t;
        float b1 = 0.0f, b2 = 0.0f;  // b_{k+1}, b_{k+2}
        for (int k = terms - 1; k >= 1; --k) {
            const float b0 = coeffs[k] + two_t * b1 - b2;
            b2 = b1;
            b1 = b0;
        }
        fx[i] = coeffs[0] + t * b1 - b2;
    }
}
