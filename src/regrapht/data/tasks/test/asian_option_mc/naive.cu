// One thread per option simulates all of its paths.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void asian_kernel(int options, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                             const float* strike, const float* vol, const float* maturity, float* price,
                             float* std_error) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= options) return;
    const float two_pi = 6.2831855f, unit = 1.0f / 16777216.0f;
    const unsigned long long pairs = (static_cast<unsigned long long>(steps) + 1) / 2;
    const float dt = maturity[k] / steps;
    const float drift = (rate - 0.5f * vol[k] * vol[k]) * dt;
    const float diffusion = vol[k] * sqrtf(dt);
    double sum = 0.0, sum_sq = 0.0;
    for (int p = 0; p < paths; ++p) {
        float s = spot[k], acc = 0.0f;
        const unsigned long long first = (static_cast<unsigned long long>(k) * paths + p) * pairs;
        for (unsigned long long q = 0; q < pairs; ++q) {
            unsigned long long h = mix64(seed + (first + q + 1) * 0x9E3779B97F4A7C15ULL);
            float u1 = static_cast<float>((h >> 40) + 1) * unit;
            float u2 = static_cast<float>((h >> 16) & 0xFFFFFFULL) * unit;
            float radius = sqrtf(-2.0f * logf(u1));
            float angle = two_pi * u2;
            float z0 = radius * cosf(angle), z1 = radius * sinf(angle);
            s *= expf(drift + diffusion * z0);
            acc += s;
            if (2 * q + 1 < static_cast<unsigned long long>(steps)) {
                s *= expf(drift + diffusion * z1);
                acc += s;
            }
        }
        double payoff = fmaxf(acc / steps - strike[k], 0.0f);
        sum += payoff;
        sum_sq += payoff * payoff;
    }
    double discount = exp(-static_cast<double>(rate) * maturity[k]);
    double mean = sum / paths;
    double var = paths > 1 ? fmax(sum_sq - paths * mean * mean, 0.0) / (paths - 1) : 0.0;
    price[k] = static_cast<float>(discount * mean);
    std_error[k] = static_cast<float>(discount * sqrt(var / paths));
}

void asian_option_mc(int options, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                     const float* strike, const float* vol, const float* maturity, float* price, float* std_error) {
    if (options <= 0) return;
    asian_kernel<<<(options + 63) / 64, 64>>>(options, paths, steps, seed, rate, spot, strike, vol, maturity, price,
                                              std_error);
}
