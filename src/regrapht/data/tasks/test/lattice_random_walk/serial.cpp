#include <algorithm>
#include <cstdint>

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void lattice_random_walk(int walkers, int steps, unsigned long long seed, int* final_x, int* final_y,
                         int* max_dist2) {
    static const int kDx[4] = {1, -1, 0, 0};
    static const int kDy[4] = {0, 0, 1, -1};
    const uint64_t words = (static_cast<uint64_t>(steps) + 31) / 32;
    for (int w = 0; w < walkers; ++w) {
        int x = 0, y = 0, best = 0;
        uint64_t bits = 0;
        for (int t = 0; t < steps; ++t) {
            if (t % 32 == 0) bits = mix64(seed + (w * words + t / 32 + 1) * 0x9E3779B97F4A7C15ULL);
            const int dir = static_cast<int>((bits >> (2 * (t % 32))) & 3u);
            x += kDx[dir];
            y += kDy[dir];
            best = std::max(best, x * x + y * y);
        }
        final_x[w] = x;
        final_y[w] = y;
        max_dist2[w] = best;
    }
}
