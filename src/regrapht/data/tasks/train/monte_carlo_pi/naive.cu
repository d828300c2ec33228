// One thread per chunk loops over the chunk's samples.
__device__ inline unsigned long long mix64(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__global__ void pi_kernel(int chunks, int samples_per_chunk, unsigned long long seed, unsigned int* hits) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks) return;
    const unsigned long long limit = 1ULL << 48;
    unsigned int inside = 0;
    for (int s = 0; s < samples_per_chunk; ++s) {
        unsigned long long k = static_cast<unsigned long long>(c) * samples_per_chunk + s;
        unsigned long long h = mix64(seed + (k + 1) * 0x9E3779B97F4A7C15ULL);
        unsigned long long x = h >> 40, y = (h >> 16) & 0xFFFFFFULL;
        if (x * x + y * y < limit) ++inside;
    }
    hits[c] = inside;
}

void monte_carlo_pi(int chunks, int samples_per_chunk, unsigned long long seed, unsigned int* hits) {
    if (chunks <= 0) return;
    pi_kernel<<<(chunks + 255) / 256, 256>>>(chunks, samples_per_chunk, seed, hits);
}
