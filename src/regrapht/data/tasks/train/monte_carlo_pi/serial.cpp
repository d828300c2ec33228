#include <cstdint>

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void monte_carlo_pi(int chunks, int samples_per_chunk, unsigned long long seed, unsigned int* hits) {
    const uint64_t limit = 1ULL << 48;
    for (int c = 0; c < chunks; ++c) {
        unsigned int inside = 0;
        for (int s = 0; s < samples_per_chunk; ++s) {
            uint64_t k = static_cast<uint64_t>(c) * samples_per_chunk + s;
            uint64_t h = mix64(seed + (k + 1) * 0x9E3779B97F4A7C15ULL);
            uint64_t x = h >> 40, y = (h >> 16) & 0xFFFFFFULL;
            if (x * x + y * y < limit) ++inside;
        }
        hits[c] = inside;
    }
}
