// One thread per problem loops over all of its samples.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void mc_kernel(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                          float* mean, float* std_error) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= problems) return;
    const float scale = 1.0f / 2097152.0f, half = 0.5f / 2097152.0f;
    double sum = 0.0, sum_sq = 0.0;
    for (int m = 0; m < samples; ++m) {
        unsigned long long h = mix64(seed + (static_cast<unsigned long long>(k) * samples + m + 1) * 0x9E3779B97F4A7C15ULL);
        float x0 = static_cast<float>(h & 0x1FFFFF) * scale + half;
        float x1 = static_cast<float>((h >> 21) & 0x1FFFFF) * scale + half;
        float x2 = static_cast<float>((h >> 42) & 0x1FFFFF) * scale + half;
        float r2 = x0 * x0 + x1 * x1 + x2 * x2;
        float f = expf(-decay[k] * r2) * cosf(freq[k] * x0);
        sum += f;
        sum_sq += static_cast<double>(f) * f;
    }
    double mu = sum / samples;
    double var = samples > 1 ? (sum_sq - samples * mu * mu) / (samples - 1) : 0.0;
    mean[k] = static_cast<float>(mu);
    std_error[k] = static_cast<float>(sqrt(var > 0.0 ? var / samples : 0.0));
}

void mc_integral_batch(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                       float* mean, float* std_error) {
    if (problems <= 0) return;
    mc_kernel<<<(problems + 127) / 128, 128>>>(problems, samples, seed, decay, freq, mean, std_error);
}
