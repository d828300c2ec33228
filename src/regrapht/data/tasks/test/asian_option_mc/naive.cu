// One thread per path simulates it and adds its payoff and squared payoff to its option's double
// sums with atomics; one thread per option then prices it.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void asian_path(int options, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                           const float* strike, const float* vol, const float* maturity, double* sums) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)options * paths) return;
    const int k = (int)(t / paths), p = (int)(t % paths);
    const float two_pi = 6.2831855f, unit = 1.0f / 16777216.0f;
    const unsigned long long pairs = (static_cast<unsigned long long>(steps) + 1) / 2;
    const float dt = maturity[k] / steps;
    const float drift = (rate - 0.5f * vol[k] * vol[k]) * dt;
    const float diffusion = vol[k] * sqrtf(dt);
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
    atomicAdd(&sums[2 * k], payoff);
    atomicAdd(&sums[2 * k + 1], payoff * payoff);
}

__global__ void asian_price(int options, int paths, float rate, const float* maturity, const double* sums, float* price,
                            float* std_error) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= options) return;
    double discount = exp(-static_cast<double>(rate) * maturity[k]);
    double mean = sums[2 * k] / paths;
    double var = paths > 1 ? fmax(sums[2 * k + 1] - paths * mean * mean, 0.0) / (paths - 1) : 0.0;
    price[k] = static_cast<float>(discount * mean);
    std_error[k] = static_cast<float>(discount * sqrt(var / paths));
}

void asian_option_mc(int options, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                     const float* strike, const float* vol, const float* maturity, float* price, float* std_error) {
    if (options <= 0) return;
    static double* sums = nullptr;
    static int capacity = 0;
    if (options > capacity) {
        if (sums) cudaFree(sums);
        cudaMalloc(&sums, 2 * options * sizeof(double));
        capacity = options;
    }
    cudaMemsetAsync(sums, 0, 2 * options * sizeof(double));
    long long threads = (long long)options * paths;
    if (threads > 0)
        asian_path<<<(int)((threads + 255) / 256), 256>>>(options, paths, steps, seed, rate, spot, strike, vol, maturity,
                                                          sums);
    asian_price<<<(options + 255) / 256, 256>>>(options, paths, rate, maturity, sums, price, std_error);
}
