// A direct parallel port of the byte-wise LSD radix sort. Each pass cuts the input into tiles of
// RS_TILE; one thread per (tile, digit value) counts its digit in its tile (the threads of a block
// read the same key at once); one thread per digit turns its row of tile counts into write
// offsets, after one thread has scanned the digit totals; and one thread per (tile, digit) walks
// its tile again in order, writing its digit's pairs (stable by construction). Passes ping-pong
// between a scratch buffer and the output.
#define RS_TILE 8192

__global__ void radix_count(int n, int shift, const unsigned int* keys, int* counts, int tiles) {
    const int tile = blockIdx.x;
    const unsigned int d = threadIdx.x;
    const int i0 = tile * RS_TILE, i1 = min(n, i0 + RS_TILE);
    int count = 0;
    for (int i = i0; i < i1; ++i)
        if (((keys[i] >> shift) & 0xFFu) == d) ++count;
    counts[d * tiles + tile] = count;
}

__global__ void radix_digit_totals(int tiles, const int* counts, int* digit_start) {
    const int d = threadIdx.x;
    int total = 0;
    for (int t = 0; t < tiles; ++t) total += counts[d * tiles + t];
    digit_start[d] = total;
}

__global__ void radix_digit_starts(int* digit_start) {
    int running = 0;
    for (int d = 0; d < 256; ++d) {
        const int c = digit_start[d];
        digit_start[d] = running;
        running += c;
    }
}

__global__ void radix_offsets(int tiles, const int* digit_start, int* counts) {
    const int d = threadIdx.x;
    int running = digit_start[d];
    for (int t = 0; t < tiles; ++t) {
        const int c = counts[d * tiles + t];
        counts[d * tiles + t] = running;
        running += c;
    }
}

__global__ void radix_scatter(int n, int shift, const unsigned int* keys_in, const int* vals_in, const int* offsets,
                              int tiles, unsigned int* keys_out, int* vals_out) {
    const int tile = blockIdx.x;
    const unsigned int d = threadIdx.x;
    const int i0 = tile * RS_TILE, i1 = min(n, i0 + RS_TILE);
    int dst = offsets[d * tiles + tile];
    for (int i = i0; i < i1; ++i) {
        const unsigned int key = keys_in[i];
        if (((key >> shift) & 0xFFu) == d) {
            keys_out[dst] = key;
            vals_out[dst] = vals_in[i];
            ++dst;
        }
    }
}

void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    if (n <= 0) return;
    const int tiles = (n + RS_TILE - 1) / RS_TILE;
    static unsigned int* tmp_keys = nullptr;
    static int* tmp_vals = nullptr;
    static int* counts = nullptr;
    static int capacity = 0, tile_capacity = 0;
    if (n > capacity) {
        if (tmp_keys) cudaFree(tmp_keys);
        if (tmp_vals) cudaFree(tmp_vals);
        cudaMalloc(&tmp_keys, n * sizeof(unsigned int));
        cudaMalloc(&tmp_vals, n * sizeof(int));
        capacity = n;
    }
    if (tiles > tile_capacity) {
        if (counts) cudaFree(counts);
        cudaMalloc(&counts, (256 * (size_t)tiles + 256) * sizeof(int));
        tile_capacity = tiles;
    }
    int* digit_start = counts + 256 * (size_t)tiles;
    // passes: input -> tmp -> output -> tmp -> output
    const unsigned int* kin[4] = {keys, tmp_keys, sorted_keys, tmp_keys};
    const int* vin[4] = {values, tmp_vals, sorted_values, tmp_vals};
    unsigned int* kout[4] = {tmp_keys, sorted_keys, tmp_keys, sorted_keys};
    int* vout[4] = {tmp_vals, sorted_values, tmp_vals, sorted_values};
    for (int pass = 0; pass < 4; ++pass) {
        const int shift = 8 * pass;
        radix_count<<<tiles, 256>>>(n, shift, kin[pass], counts, tiles);
        radix_digit_totals<<<1, 256>>>(tiles, counts, digit_start);
        radix_digit_starts<<<1, 1>>>(digit_start);
        radix_offsets<<<1, 256>>>(tiles, digit_start, counts);
        radix_scatter<<<tiles, 256>>>(n, shift, kin[pass], vin[pass], counts, tiles, kout[pass], vout[pass]);
    }
}
