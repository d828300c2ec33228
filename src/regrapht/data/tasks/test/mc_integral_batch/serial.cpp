#include <cmath>
#include <cstdint>

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void mc_integral_batch(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                       float* mean, float* std_error) {
    const float scale = 1.0f / 2097152.0f, half = 0.5f / 2097152.0f;
    for (int k = 0; k < problems; ++k) {
        double sum = 0.0, sum_sq = 0.0;
        for (int m = 0; m < samples; ++m) {
            const uint64_t h = mix64(seed + (static_cast<uint64_t>(k) * samples + m + 1) * 0x9E3779B97F4A7C15ULL);
            const float x0 = static_cast<float>(h & 0x1FFFFF) * scale + half;
            const float x1 = static_cast<float>((h >> 21) & 0x1FFFFF) * scale + half;
            const float x2 = static_cast<float>((h >> 42) & 0x1FFFFF) * scale + half;
            const float r2 = x0 * x0 + x1 * x1 + x2 * x2;
            const float f = std::exp(-decay[k] * r2) * std::cos(freq[k] * x0);
            sum += f;
            sum_sq += static_cast<double>(f) * f;
        }
        const double mu = sum / samples;
        const double var = samples > 1 ? (sum_sq - samples * mu * mu) / (samples - 1) : 0.0;
        mean[k] = static_cast<float>(mu);
        std_error[k] = static_cast<float>(std::sqrt(var > 0.0 ? var / samples : 0.0));
    }
}
