// steps: parallelize, work_decomposition, strength_reduction, warp_shuffle_reduction, block_tree_reduction, atomic_operations, grid_stride_loop, atomic_privatization
// A 2D grid: blockIdx.y picks the option, and the threads of blockIdx.x's chunk each simulate one
// path at a time, so thousands of paths run in parallel instead of one thread per option. Per-option
// constants are hoisted, each hash yields both Box-Muller normals through one sincosf, and the
// per-step parity branch is removed by splitting the loop into full pairs plus an odd tail. Each
// block reduces its double payoff sums with warp shuffles and a shared-memory step and adds them to
// the option's accumulators with one double atomicAdd; a tiny kernel turns the sums into prices.
constexpr int kThreads = 256;
constexpr int kMaxChunks = 64;

__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void asian_paths(int first_option, int paths, int steps, unsigned long long seed, float rate, const float* spot,
                            const float* strike, const float* vol, const float* maturity, double* sums) {
    const int k = first_option + blockIdx.y;
    const float two_pi = 6.2831855f, unit = 1.0f / 16777216.0f;
    const unsigned long long pairs = (static_cast<unsigned long long>(steps) + 1) / 2;
    const unsigned long long full = static_cast<unsigned long long>(steps) / 2;
    const bool odd = steps & 1;
    const float v = vol[k];
    const float dt = maturity[k] / steps;
    const float drift = (rate - 0.5f * v * v) * dt;
    const float diffusion = v * sqrtf(dt);
    const float s0 = spot[k], K = strike[k];
    const unsigned long long base = static_cast<unsigned long long>(k) * paths;
    double sum = 0.0, sum_sq = 0.0;
    for (int p = blockIdx.x * kThreads + threadIdx.x; p < paths; p += gridDim.x * kThreads) {
        float s = s0, acc = 0.0f;
        const unsigned long long first = (base + p) * pairs + 1;
        for (unsigned long long q = 0; q < full; ++q) {
            unsigned long long h = mix64(seed + (first + q) * 0x9E3779B97F4A7C15ULL);
            float u1 = static_cast<float>((h >> 40) + 1) * unit;
            float u2 = static_cast<float>((h >> 16) & 0xFFFFFFULL) * unit;
            float radius = sqrtf(-2.0f * logf(u1));
            float sn, cs;
            sincosf(two_pi * u2, &sn, &cs);
            s *= expf(drift + diffusion * (radius * cs));
            acc += s;
            s *= expf(drift + diffusion * (radius * sn));
            acc += s;
        }
        if (odd) {
            unsigned long long h = mix64(seed + (first + full) * 0x9E3779B97F4A7C15ULL);
            float u1 = static_cast<float>((h >> 40) + 1) * unit;
            float u2 = static_cast<float>((h >> 16) & 0xFFFFFFULL) * unit;
            float radius = sqrtf(-2.0f * logf(u1));
            s *= expf(drift + diffusion * (radius * cosf(two_pi * u2)));
            acc += s;
        }
        double payoff = fmaxf(acc / steps - K, 0.0f);
        sum += payoff;
        sum_sq += payoff * payoff;
    }
    for (int off = 16; off > 0; off >>= 1) {
        sum += __shfl_down_sync(0xffffffffu, sum, off);
        sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, off);
    }
    __shared__ double part[2][kThreads / 32];
    const int warp = threadIdx.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        part[0][warp] = sum;
        part[1][warp] = sum_sq;
    }
    __syncthreads();
    for (int stride = kThreads / 64; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part[0][threadIdx.x] += part[0][threadIdx.x + stride];
            part[1][threadIdx.x] += part[1][threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&sums[2 * k], part[0][0]);
        atomicAdd(&sums[2 * k + 1], part[1][0]);
    }
}

__global__ void asian_finish(int options, int paths, float rate, const float* maturity, const double* sums, float* price,
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
    static int held = 0;
    if (options > held) {
        if (sums) cudaFree(sums);
        cudaMalloc(&sums, 2 * static_cast<size_t>(options) * sizeof(double));
        held = options;
    }
    cudaMemset(sums, 0, 2 * static_cast<size_t>(options) * sizeof(double));
    int chunks = (paths + kThreads - 1) / kThreads;
    chunks = chunks < 1 ? 1 : (chunks > kMaxChunks ? kMaxChunks : chunks);
    for (int k0 = 0; k0 < options; k0 += 65535) {  // gridDim.y is limited to 65535
        dim3 grid(chunks, options - k0 < 65535 ? options - k0 : 65535);
        asian_paths<<<grid, kThreads>>>(k0, paths, steps, seed, rate, spot, strike, vol, maturity, sums);
    }
    asian_finish<<<(options + 127) / 128, 128>>>(options, paths, rate, maturity, sums, price, std_error);
}
