// A direct port: one thread per point, coefficients read from global memory in the inner loop.
__global__ void chebyshev_kernel(int n, int terms, float lo, float hi, const float* coeffs, const float* x, float* fx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float t = (2.0f * x[i] - lo - hi) / (hi - lo);
    const float two_t = 2.0f * t;
    float b1 = 0.0f, b2 = 0.0f;
    for (int k = terms - 1; k >= 1; --k) {
        const float b0 = coeffs[k] + two_t * b1 - b2;
        b2 = b1;
        b1 = b0;
    }
    fx[i] = coeffs[0] + t * b1 - b2;
}

void chebyshev_eval(int n, int terms, float lo, float hi, const float* coeffs, const float* x, float* fx) {
    if (n > 0) chebyshev_kernel<<<(n + 255) / 256, 256>>>(n, terms, lo, hi, coeffs, x, fx);
}
