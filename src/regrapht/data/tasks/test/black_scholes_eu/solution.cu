// steps: vectorized_access
// Single precision is within the tolerance (fp32 logf/expf/erfcf are accurate to a few ulp), so each
// thread prices four options in float, with float4 loads and stores, instead of the reference's double
// arithmetic. N(-d) is evaluated as erfc's tail, not as 1 - N(d), which would lose the put's digits.
__device__ __forceinline__ void price_one(float s, float k, float t, float v, float r, float& c, float& p) {
    float sqrt_t = sqrtf(t);
    float v_sqrt_t = v * sqrt_t;
    float log_moneyness = logf(s / k);
    float d1 = (log_moneyness + (r + 0.5f * v * v) * t) / v_sqrt_t;
    float d2 = d1 - v_sqrt_t;
    float discounted_strike = k * expf(-r * t);
    float n1 = 0.5f * erfcf(-d1 * 0.70710678f);
    float n2 = 0.5f * erfcf(-d2 * 0.70710678f);
    c = s * n1 - discounted_strike * n2;
    float m1 = 0.5f * erfcf(d1 * 0.70710678f);
    float m2 = 0.5f * erfcf(d2 * 0.70710678f);
    p = discounted_strike * m2 - s * m1;
}

__global__ void black_scholes_vec4(int n, const float* __restrict__ spot, const float* __restrict__ strike,
                                   const float* __restrict__ years, const float* __restrict__ vol, float rate,
                                   float* __restrict__ call, float* __restrict__ put) {
    long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long i0 = q * 4;
    if (i0 >= n) return;
    if (i0 + 4 <= n) {
        float4 s = reinterpret_cast<const float4*>(spot)[q];
        float4 k = reinterpret_cast<const float4*>(strike)[q];
        float4 t = reinterpret_cast<const float4*>(years)[q];
        float4 v = reinterpret_cast<const float4*>(vol)[q];
        float4 c, p;
        price_one(s.x, k.x, t.x, v.x, rate, c.x, p.x);
        price_one(s.y, k.y, t.y, v.y, rate, c.y, p.y);
        price_one(s.z, k.z, t.z, v.z, rate, c.z, p.z);
        price_one(s.w, k.w, t.w, v.w, rate, c.w, p.w);
        reinterpret_cast<float4*>(call)[q] = c;
        reinterpret_cast<float4*>(put)[q] = p;
    } else {
        for (long long i = i0; i < n; ++i) price_one(spot[i], strike[i], years[i], vol[i], rate, call[i], put[i]);
    }
}

void black_scholes_eu(int n, const float* spot, const float* strike, const float* years, const float* vol,
                      float rate, float* call, float* put) {
    if (n <= 0) return;
    long long quads = (static_cast<long long>(n) + 3) / 4;
    int blocks = static_cast<int>((quads + 255) / 256);
    black_scholes_vec4<<<blocks, 256>>>(n, spot, strike, years, vol, rate, call, put);
}
