// One thread per (problem, chunk of MC_CHUNK samples) sums its samples in double and adds them to
// its problem's sums with atomics; one thread per problem then forms the mean and standard error.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#define MC_CHUNK 256

__global__ void mc_chunk(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                         double* sums) {
    const int chunks = (samples + MC_CHUNK - 1) / MC_CHUNK;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)problems * chunks) return;
    const int k = (int)(t / chunks), m0 = (int)(t % chunks) * MC_CHUNK, m1 = min(samples, m0 + MC_CHUNK);
    const float scale = 1.0f / 2097152.0f, half = 0.5f / 2097152.0f;
    double sum = 0.0, sum_sq = 0.0;
    for (int m = m0; m < m1; ++m) {
        unsigned long long h = mix64(seed + (static_cast<unsigned long long>(k) * samples + m + 1) * 0x9E3779B97F4A7C15ULL);
        float x0 = static_cast<float>(h & 0x1FFFFF) * scale + half;
        float x1 = static_cast<float>((h >> 21) & 0x1FFFFF) * scale + half;
        float x2 = static_cast<float>((h >> 42) & 0x1FFFFF) * scale + half;
        float r2 = x0 * x0 + x1 * x1 + x2 * x2;
        float f = expf(-decay[k] * r2) * cosf(freq[k] * x0);
        sum += f;
        sum_sq += static_cast<double>(f) * f;
    }
    atomicAdd(&sums[2 * k], sum);
    atomicAdd(&sums[2 * k + 1], sum_sq);
}

__global__ void mc_finish(int problems, int samples, const double* sums, float* mean, float* std_error) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= problems) return;
    double mu = sums[2 * k] / samples;
    double var = samples > 1 ? (sums[2 * k + 1] - samples * mu * mu) / (samples - 1) : 0.0;
    mean[k] = static_cast<float>(mu);
    std_error[k] = static_cast<float>(sqrt(var > 0.0 ? var / samples : 0.0));
}

void mc_integral_batch(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                       float* mean, float* std_error) {
    if (problems <= 0) return;
    static double* sums = nullptr;
    static int capacity = 0;
    if (problems > capacity) {
        if (sums) cudaFree(sums);
        cudaMalloc(&sums, 2 * problems * sizeof(double));
        capacity = problems;
    }
    cudaMemsetAsync(sums, 0, 2 * problems * sizeof(double));
    long long threads = (long long)problems * ((samples + MC_CHUNK - 1) / MC_CHUNK);
    if (threads > 0)
        mc_chunk<<<(int)((threads + 255) / 256), 256>>>(problems, samples, seed, decay, freq, sums);
    mc_finish<<<(problems + 255) / 256, 256>>>(problems, samples, sums, mean, std_error);
}
