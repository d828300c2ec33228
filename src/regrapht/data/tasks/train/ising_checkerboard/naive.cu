// One launch per colour (the second colour must see the first one's updates), one thread per site
// of the colour being updated.
__global__ void ising_half_sweep(int H, int W, int colour, float p4, float p8, const float* rnd,
                                 signed char* spin) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // index among this colour's sites
    int halfW = W / 2;
    if (idx >= (long long)H * halfW) return;
    int i = (int)(idx / halfW);
    int j = 2 * (int)(idx - (long long)i * halfW) + ((i + colour) & 1);
    int up = (i + H - 1) % H, down = (i + 1) % H;
    int left = (j + W - 1) % W, right = (j + 1) % W;
    long long site = (long long)i * W + j;
    int s = spin[site];
    int nb = spin[(long long)up * W + j] + spin[(long long)down * W + j] + spin[(long long)i * W + left] +
             spin[(long long)i * W + right];
    int dE = 2 * s * nb;
    float r = rnd[site];
    bool flip = dE <= 0 || (dE == 4 && r < p4) || (dE == 8 && r < p8);
    if (flip) spin[site] = (signed char)(-s);
}

void ising_checkerboard(int H, int W, float p4, float p8, const float* rnd, signed char* spin) {
    long long sites = (long long)H * (W / 2);
    if (sites <= 0) return;
    unsigned blocks = (unsigned)((sites + 255) / 256);
    ising_half_sweep<<<blocks, 256>>>(H, W, 0, p4, p8, rnd, spin);
    ising_half_sweep<<<blocks, 256>>>(H, W, 1, p4, p8, rnd, spin);
}
