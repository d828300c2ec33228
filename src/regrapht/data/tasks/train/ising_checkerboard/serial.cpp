// Two half-sweeps over the lattice: black sites ((i + j) even) first, then white sites, each
// reading the neighbours' values as they stand (the other colour, already updated).
static void half_sweep(int H, int W, int colour, float p4, float p8, const float* rnd, signed char* spin) {
    for (int i = 0; i < H; ++i) {
        const int up = (i + H - 1) % H, down = (i + 1) % H;
        for (int j = (i + colour) & 1; j < W; j += 2) {
            const int left = (j + W - 1) % W, right = (j + 1) % W;
            const int s = spin[i * W + j];
            const int nb = spin[up * W + j] + spin[down * W + j] + spin[i * W + left] + spin[i * W + right];
            const int dE = 2 * s * nb;
            const float r = rnd[i * W + j];
            const bool flip = dE <= 0 || (dE == 4 && r < p4) || (dE == 8 && r < p8);
            if (flip) spin[i * W + j] = static_cast<signed char>(-s);
        }
    }
}

void ising_checkerboard(int H, int W, float p4, float p8, const float* rnd, signed char* spin) {
    half_sweep(H, W, 0, p4, p8, rnd, spin);
    half_sweep(H, W, 1, p4, p8, rnd, spin);
}
