// steps: parallelize, warp_divergence_elimination
// Branch-free steps: the two direction bits become dx, dy in {-1, 0, 1} arithmetically, so the warp
// never splits on the random direction; the hash word is consumed two bits at a time by shifting.
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void walk_branchless(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                                int* max_dist2) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= walkers) return;
    const unsigned long long words = (static_cast<unsigned long long>(steps) + 31) / 32;
    int x = 0, y = 0, best = 0;
    int t = 0;
    for (unsigned long long q = 0; q < words; ++q) {
        unsigned long long bits = mix64(seed + (w * words + q + 1) * 0x9E3779B97F4A7C15ULL);
        const int count = min(32, steps - t);
        for (int k = 0; k < count; ++k) {
            const int dir = static_cast<int>(bits & 3u);
            bits >>= 2;
            const int axis_y = dir >> 1;             // 0: x axis, 1: y axis
            const int sign = 1 - 2 * (dir & 1);      // +1 or -1
            x += sign * (1 - axis_y);
            y += sign * axis_y;
            best = max(best, x * x + y * y);
        }
        t += count;
    }
    final_x[w] = x;
    final_y[w] = y;
    max_dist2[w] = best;
}

void lattice_random_walk(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                         int* max_dist2) {
    if (walkers <= 0) return;
    walk_branchless<<<(walkers + 255) / 256, 256>>>(walkers, steps, seed, final_x, final_y, max_dist2);
}
