// steps: parallelize, work_decomposition, warp_shuffle_reduction, block_tree_reduction
// One block per problem: its 256 threads split the samples (thread t takes m = t, t + 256, ...),
// each keeps double partial sums in registers, and the block combines them with warp shuffles
// followed by a small shared-memory tree across the warps.
constexpr int kThreads = 256;

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void mc_block(int samples, unsigned long long seed, const float* decay, const float* freq, float* mean,
                         float* std_error) {
    const int k = blockIdx.x;
    const float a = decay[k], b = freq[k];
    const float scale = 1.0f / 2097152.0f, half = 0.5f / 2097152.0f;
    const unsigned long long base = static_cast<unsigned long long>(k) * samples + 1;
    double sum = 0.0, sum_sq = 0.0;
    for (int m = threadIdx.x; m < samples; m += kThreads) {
        unsigned long long h = mix64(seed + (base + m) * 0x9E3779B97F4A7C15ULL);
        float x0 = static_cast<float>(h & 0x1FFFFF) * scale + half;
        float x1 = static_cast<float>((h >> 21) & 0x1FFFFF) * scale + half;
        float x2 = static_cast<float>((h >> 42) & 0x1FFFFF) * scale + half;
        float r2 = x0 * x0 + x1 * x1 + x2 * x2;
        float f = expf(-a * r2) * cosf(b * x0);
        sum += f;
        sum_sq += static_cast<double>(f) * f;
    }
    for (int off = 16; off > 0; off >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, off);
        sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, off);
    }
    __shared__ double part_sum[kThreads / 32], part_sq[kThreads / 32];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) {
        part_sum[warp] = sum;
        part_sq[warp] = sum_sq;
    }
    __syncthreads();
    for (int stride = kThreads / 64; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part_sum[threadIdx.x] += part_sum[threadIdx.x + stride];
            part_sq[threadIdx.x] += part_sq[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        double mu = part_sum[0] / samples;
        double var = samples > 1 ? (part_sq[0] - samples * mu * mu) / (samples - 1) : 0.0;
        mean[k] = static_cast<float>(mu);
        std_error[k] = static_cast<float>(sqrt(var > 0.0 ? var / samples : 0.0));
    }
}

void mc_integral_batch(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                       float* mean, float* std_error) {
    if (problems <= 0) return;
    mc_block<<<problems, kThreads>>>(samples, seed, decay, freq, mean, std_error);
}
