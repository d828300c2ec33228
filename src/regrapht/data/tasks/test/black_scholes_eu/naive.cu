// The serial loop body, one thread per option, in double as the reference computes.
__device__ double normal_cdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }

__global__ void black_scholes_kernel(int n, const float* spot, const float* strike, const float* years,
                                     const float* vol, float rate, float* call, float* put) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double s = spot[i], k = strike[i], t = years[i], v = vol[i], r = rate;
    double v_sqrt_t = v * sqrt(t);
    double d1 = (log(s / k) + (r + 0.5 * v * v) * t) / v_sqrt_t;
    double d2 = d1 - v_sqrt_t;
    double discounted_strike = k * exp(-r * t);
    call[i] = (float)(s * normal_cdf(d1) - discounted_strike * normal_cdf(d2));
    put[i] = (float)(discounted_strike * normal_cdf(-d2) - s * normal_cdf(-d1));
}

void black_scholes_eu(int n, const float* spot, const float* strike, const float* years, const float* vol,
                      float rate, float* call, float* put) {
    if (n <= 0) return;
    black_scholes_kernel<<<(n + 255) / 256, 256>>>(n, spot, strike, years, vol, rate, call, put);
}
