// A direct parallel port. The input is cut into tiles of CSP_TILE; one thread per (tile, key value)
// counts that key in its tile (the threads of a block read the same key at once); one thread per
// key sums its row of tile counts, one thread turns the totals into bucket starts, and one thread
// per key turns its row into write offsets; then one thread per (tile, key) walks its tile again
// in order, writing its key's pairs (stable by construction).
#define CSP_TILE 8192

__global__ void count_in_tiles(int n, int key_range, int tiles, const int* keys, int* counts) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x, tile = blockIdx.y;
    if (k >= key_range) return;
    const int i0 = tile * CSP_TILE, i1 = min(n, i0 + CSP_TILE);
    int count = 0;
    for (int i = i0; i < i1; ++i)
        if (keys[i] == k) ++count;
    counts[(long long)k * tiles + tile] = count;
}

__global__ void key_totals(int key_range, int tiles, const int* counts, int* bucket_start) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= key_range) return;
    int total = 0;
    for (int t = 0; t < tiles; ++t) total += counts[(long long)k * tiles + t];
    bucket_start[k] = total;
}

__global__ void bucket_starts(int key_range, int* bucket_start) {
    int running = 0;
    for (int k = 0; k < key_range; ++k) {
        const int c = bucket_start[k];
        bucket_start[k] = running;
        running += c;
    }
    bucket_start[key_range] = running;
}

__global__ void tile_offsets(int key_range, int tiles, const int* bucket_start, int* counts) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= key_range) return;
    int running = bucket_start[k];
    for (int t = 0; t < tiles; ++t) {
        const int c = counts[(long long)k * tiles + t];
        counts[(long long)k * tiles + t] = running;
        running += c;
    }
}

__global__ void fill_from_tiles(int n, int key_range, int tiles, const int* keys, const float* payload,
                                const int* offsets, int* sorted_keys, float* sorted_payload) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x, tile = blockIdx.y;
    if (k >= key_range) return;
    const int i0 = tile * CSP_TILE, i1 = min(n, i0 + CSP_TILE);
    int dst = offsets[(long long)k * tiles + tile];
    for (int i = i0; i < i1; ++i) {
        if (keys[i] == k) {
            sorted_keys[dst] = k;
            sorted_payload[dst] = payload[i];
            ++dst;
        }
    }
}

void counting_sort_pairs(int n, int key_range, const int* keys, const float* payload, int* sorted_keys,
                         float* sorted_payload, int* bucket_start) {
    if (key_range <= 0) return;
    const int tiles = n > 0 ? (n + CSP_TILE - 1) / CSP_TILE : 0;
    static int* counts = nullptr;
    static long long capacity = 0;
    const long long need = (long long)key_range * (tiles > 0 ? tiles : 1);
    if (need > capacity) {
        if (counts) cudaFree(counts);
        cudaMalloc(&counts, need * sizeof(int));
        capacity = need;
    }
    const int key_blocks = (key_range + 255) / 256;
    if (tiles > 0) count_in_tiles<<<dim3(key_blocks, tiles), 256>>>(n, key_range, tiles, keys, counts);
    key_totals<<<key_blocks, 256>>>(key_range, tiles, counts, bucket_start);
    bucket_starts<<<1, 1>>>(key_range, bucket_start);
    tile_offsets<<<key_blocks, 256>>>(key_range, tiles, bucket_start, counts);
    if (tiles > 0)
        fill_from_tiles<<<dim3(key_blocks, tiles), 256>>>(n, key_range, tiles, keys, payload, counts, sorted_keys,
                                                          sorted_payload);
}
