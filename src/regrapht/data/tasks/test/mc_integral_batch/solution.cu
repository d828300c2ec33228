// steps: work_decomposition, strength_reduction, loop_unrolling, warp_shuffle_reduction, block_tree_reduction
// The task is bound by the instructions issued per sample (hash, coordinates, exp, cos, two double
// sums), so this solution removes instructions, keeping every sample's value:
// - the hash input seed + (k*samples + m + 1) * G steps by a constant 64-bit add per sample
//   (thread t takes m = t, t + 256, ...: the input grows by 256 * G mod 2^64), not a 64-bit multiply;
// - a 21-bit coordinate becomes a float by or-ing it into the mantissa of 2^23 and one FMA, with no
//   int-to-float conversion (a quarter-rate pipe): (2^23 + v) * 2^-21 - 4 + 2^-22 = v * 2^-21 + 2^-22
//   is exact, so the coordinates are bit-identical to the reference's;
// - cos(freq * x0) with freq * x0 within +-32768 (every block whose |freq| is, as x0 < 1) reduces by
//   pi in two FMAs (k rounded by the 1.5 * 2^23 trick, whose low bit is k's parity) and evaluates
//   cos on [-pi/2, pi/2] by its Taylor polynomial to r^14 (truncation under 1e-10, a few float
//   ulps of rounding); other blocks call cosf;
// - four samples per loop trip. One block per problem: shuffles, then a tree over the block's warps.
constexpr int kThreads = 256;

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// v * 2^-21 + 2^-22 for a 21-bit v, exactly
__device__ __forceinline__ float coord(unsigned int v) {
    return fmaf(__uint_as_float(0x4B000000u | v), 1.0f / 2097152.0f, -4.0f + 1.0f / 4194304.0f);
}

// cos(t) for |t| <= 32768: t = k*pi + r, |r| <= pi/2, cos(t) = (-1)^k cos(r)
__device__ __forceinline__ float cos_reduced(float t) {
    const float j = fmaf(t, 0.318309886f, 12582912.0f);  // 1.5 * 2^23 + rint(t / pi)
    const float k = j - 12582912.0f;
    float r = fmaf(-k, 3.14159274f, t);  // pi's float, then the rest of pi
    r = fmaf(-k, -8.74227766e-8f, r);
    const float s = r * r;
    float p = 1.0f / 87178291200.0f;
    p = fmaf(p, -s, 1.0f / 479001600.0f);
    p = fmaf(p, -s, 1.0f / 3628800.0f);
    p = fmaf(p, -s, 1.0f / 40320.0f);
    p = fmaf(p, -s, 1.0f / 720.0f);
    p = fmaf(p, -s, 1.0f / 24.0f);
    p = fmaf(p, -s, 0.5f);
    p = fmaf(p, -s, 1.0f);
    return __uint_as_float(__float_as_uint(p) ^ (__float_as_uint(j) << 31));
}

template <bool kReduced>
__device__ __forceinline__ void accumulate(int samples, unsigned long long z, float a, float b, double& sum,
                                           double& sum_sq) {
    const unsigned long long step = static_cast<unsigned long long>(kThreads) * 0x9E3779B97F4A7C15ULL;
#pragma unroll 4
    for (int m = threadIdx.x; m < samples; m += kThreads) {
        const unsigned long long h = mix64(z);
        z += step;
        const float x0 = coord(static_cast<unsigned int>(h) & 0x1FFFFFu);
        const float x1 = coord(static_cast<unsigned int>(h >> 21) & 0x1FFFFFu);
        const float x2 = coord(static_cast<unsigned int>(h >> 42) & 0x1FFFFFu);
        const float r2 = x0 * x0 + x1 * x1 + x2 * x2;
        const float f = expf(-a * r2) * (kReduced ? cos_reduced(b * x0) : cosf(b * x0));
        sum += f;
        sum_sq += static_cast<double>(f) * f;
    }
}

__global__ void __launch_bounds__(kThreads) mc_block(int samples, unsigned long long seed, const float* decay,
                                                     const float* freq, float* mean, float* std_error) {
    const int k = blockIdx.x;
    const float a = decay[k], b = freq[k];
    // the hash input of this thread's first sample, m = threadIdx.x
    const unsigned long long z =
        seed + (static_cast<unsigned long long>(k) * samples + threadIdx.x + 1) * 0x9E3779B97F4A7C15ULL;
    double sum = 0.0, sum_sq = 0.0;
    if (fabsf(b) <= 32768.0f)
        accumulate<true>(samples, z, a, b, sum, sum_sq);
    else
        accumulate<false>(samples, z, a, b, sum, sum_sq);

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
        const double mu = part_sum[0] / samples;
        const double var = samples > 1 ? (part_sq[0] - samples * mu * mu) / (samples - 1) : 0.0;
        mean[k] = static_cast<float>(mu);
        std_error[k] = static_cast<float>(sqrt(var > 0.0 ? var / samples : 0.0));
    }
}

void mc_integral_batch(int problems, int samples, unsigned long long seed, const float* decay, const float* freq,
                       float* mean, float* std_error) {
    if (problems <= 0) return;
    mc_block<<<problems, kThreads>>>(samples, seed, decay, freq, mean, std_error);
}
