// steps: parallelize, work_decomposition, warp_shuffle_reduction, block_tree_reduction
// One block per problem: its 256 threads split the samples (thread t takes m = t, t + 256, ...),
// each keeps double partial sums in registers, and the block combines them with warp shuffles
// followed by a small shared-memory tree across the warps. The per-sample work is integer-bound, so
// two reductions of it: the hash input seed + (k samples + m + 1) * golden is stepped by
// 256 * golden (one 64-bit add, the same value modulo 2^64 as the reference's multiply), and each
// coordinate is built from its 21 bits as the float 1 + bits 2^-21 + 2^-22 minus 1 (an OR and a
// subtraction, both exact: the same value as the reference's int-to-float conversion, which runs at
// a quarter of the integer rate).
constexpr int kThreads = 256;

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// bits * 2^-21 + 2^-22 for bits < 2^21, exactly: the mantissa of 1 + (4 bits + 2) 2^-23, less 1.
__device__ __forceinline__ float unit21(unsigned bits) {
    return __uint_as_float(0x3F800000u | (bits << 2) | 2u) - 1.0f;
}

__global__ void mc_block(int samples, unsigned long long seed, const float* decay, const float* freq, float* mean,
                         float* std_error) {
    const int k = blockIdx.x;
    const float a = decay[k], b = freq[k];
    const unsigned long long golden = 0x9E3779B97F4A7C15ULL;
    const unsigned long long base = static_cast<unsigned long long>(k) * samples + 1;
    const unsigned long long step = static_cast<unsigned long long>(kThreads) * golden;
    unsigned long long z = seed + (base + threadIdx.x) * golden;
    double sum = 0.0, sum_sq = 0.0;
    for (int m = threadIdx.x; m < samples; m += kThreads, z += step) {
        const unsigned long long h = mix64(z);
        float x0 = unit21(static_cast<unsigned>(h) & 0x1FFFFFu);
        float x1 = unit21(static_cast<unsigned>(h >> 21) & 0x1FFFFFu);
        float x2 = unit21(static_cast<unsigned>(h >> 42) & 0x1FFFFFu);
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
