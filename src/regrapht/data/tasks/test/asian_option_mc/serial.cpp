#include <algorithm>
#include <cmath>
#include <cstdint>

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void asian_option_mc(int options, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                     const float* strike, const float* vol, const float* maturity, float* price, float* std_error) {
    const float two_pi = 6.2831855f, unit = 1.0f / 16777216.0f;
    const uint64_t pairs = (static_cast<uint64_t>(steps) + 1) / 2;
    for (int k = 0; k < options; ++k) {
        const float dt = maturity[k] / steps;
        const float drift = (rate - 0.5f * vol[k] * vol[k]) * dt;
        const float diffusion = vol[k] * std::sqrt(dt);
        double sum = 0.0, sum_sq = 0.0;
        for (int p = 0; p < paths; ++p) {
            float s = spot[k], acc = 0.0f;
            const uint64_t first = (static_cast<uint64_t>(k) * paths + p) * pairs;
            for (uint64_t q = 0; q < pairs; ++q) {
                const uint64_t h = mix64(seed + (first + q + 1) * 0x9E3779B97F4A7C15ULL);
                const float u1 = static_cast<float>((h >> 40) + 1) * unit;
                const float u2 = static_cast<float>((h >> 16) & 0xFFFFFFULL) * unit;
                const float radius = std::sqrt(-2.0f * std::log(u1));
                const float angle = two_pi * u2;
                const float z0 = radius * std::cos(angle), z1 = radius * std::sin(angle);
                s *= std::exp(drift + diffusion * z0);
                acc += s;
                if (2 * q + 1 < static_cast<uint64_t>(steps)) {
                    s *= std::exp(drift + diffusion * z1);
                    acc += s;
                }
            }
            const double payoff = std::max(acc / steps - strike[k], 0.0f);
            sum += payoff;
            sum_sq += payoff * payoff;
        }
        const double discount = std::exp(-static_cast<double>(rate) * maturity[k]);
        const double mean = sum / paths;
        const double var = paths > 1 ? std::max(sum_sq - paths * mean * mean, 0.0) / (paths - 1) : 0.0;
        price[k] = static_cast<float>(discount * mean);
        std_error[k] = static_cast<float>(discount * std::sqrt(var / paths));
    }
}
