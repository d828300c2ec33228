// steps: parallelize, warp_divergence_elimination
// Branch-free steps: the two direction bits become dx, dy in {-1, 0, 1} arithmetically, so the warp
// never splits on the random direction. A full word (32 steps: every word but a partial last one)
// runs fully unrolled from its two 32-bit halves, so each step's bits come out at a constant
// position: no 64-bit shift, loop counter or branch per step, which were about a third of a step's
// work next to the move and the distance. The hash input is stepped by an add, not a multiply.
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// One step in direction dir (0: +x, 1: -x, 2: +y, 3: -y), then the running maximum of x^2 + y^2.
__device__ __forceinline__ void step(unsigned dir, int& x, int& y, int& best) {
    const int axis_y = (int)(dir >> 1);        // 0: x axis, 1: y axis
    const int sign = 1 - 2 * (int)(dir & 1u);  // +1 or -1
    x += sign * (1 - axis_y);
    y += sign * axis_y;
    best = max(best, x * x + y * y);
}

__global__ void walk_branchless(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                                int* max_dist2) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= walkers) return;
    const unsigned long long golden = 0x9E3779B97F4A7C15ULL;
    const unsigned long long words = (static_cast<unsigned long long>(steps) + 31) / 32;
    const unsigned long long full = static_cast<unsigned long long>(steps) / 32;  // words of 32 steps
    // word q's hash input, seed + (w words + q + 1) golden, advanced by one golden per word
    unsigned long long z = seed + (w * words + 1) * golden;
    int x = 0, y = 0, best = 0;
    for (unsigned long long q = 0; q < full; ++q, z += golden) {
        const unsigned long long bits = mix64(z);
        const unsigned lo = static_cast<unsigned>(bits), hi = static_cast<unsigned>(bits >> 32);
#pragma unroll
        for (int k = 0; k < 16; ++k) step((lo >> (2 * k)) & 3u, x, y, best);
#pragma unroll
        for (int k = 0; k < 16; ++k) step((hi >> (2 * k)) & 3u, x, y, best);
    }
    if (full < words) {  // the partial last word: steps % 32 steps
        unsigned long long bits = mix64(z);
        for (int k = 0; k < steps % 32; ++k) {
            step(static_cast<unsigned>(bits & 3u), x, y, best);
            bits >>= 2;
        }
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
