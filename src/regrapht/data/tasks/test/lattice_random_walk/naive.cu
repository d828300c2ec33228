// One thread per walker, the reference loop with a branch on the direction.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void walk_kernel(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                            int* max_dist2) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= walkers) return;
    const unsigned long long words = (static_cast<unsigned long long>(steps) + 31) / 32;
    int x = 0, y = 0, best = 0;
    unsigned long long bits = 0;
    for (int t = 0; t < steps; ++t) {
        if (t % 32 == 0) bits = mix64(seed + (w * words + t / 32 + 1) * 0x9E3779B97F4A7C15ULL);
        int dir = static_cast<int>((bits >> (2 * (t % 32))) & 3u);
        if (dir == 0) ++x;
        else if (dir == 1) --x;
        else if (dir == 2) ++y;
        else --y;
        best = max(best, x * x + y * y);
    }
    final_x[w] = x;
    final_y[w] = y;
    max_dist2[w] = best;
}

void lattice_random_walk(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                         int* max_dist2) {
    if (walkers <= 0) return;
    walk_kernel<<<(walkers + 255) / 256, 256>>>(walkers, steps, seed, final_x, final_y, max_dist2);
}
