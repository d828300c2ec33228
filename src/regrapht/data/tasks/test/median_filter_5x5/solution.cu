// steps: parallelize, shared_memory_tiling, algorithmic_change, thread_coarsening, register_tiling, vectorized_access, warp_divergence_elimination, loop_unrolling
// No sorting: the median of 25 bytes is found by a bitwise radix select (for each bit from the top,
// keep it if fewer than 13 window values are below the candidate), which is branch-free. Each thread
// handles 4 horizontally adjacent pixels at once with SIMD-in-a-word byte arithmetic (__vcmpltu4,
// __vsub4): the 25 window words, each packing the 4 pixels' values at one offset, stay in registers.
// A block stages its clamped 12 x 132-byte input window in shared memory; unaligned 4-byte windows
// are assembled from two aligned words with __byte_perm.
constexpr int BX = 32;                    // threads in x, 4 pixels each
constexpr int BY = 8;                     // threads in y, 1 row each
constexpr int TILE_W = BX * 4;            // 128 output columns per block
constexpr int ROW_BYTES = TILE_W + 8;     // 132 used (2-pixel halo each side) + padding, multiple of 4
constexpr int ROWS = BY + 4;

__global__ void __launch_bounds__(BX * BY) median5_radix(int height, int width, const unsigned char* __restrict__ img,
                                                         unsigned char* __restrict__ out) {
    __shared__ unsigned int tile32[ROWS * ROW_BYTES / 4];
    unsigned char* tile = reinterpret_cast<unsigned char*>(tile32);
    const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * BY;
    const int tid = threadIdx.y * BX + threadIdx.x;
    for (int j = tid; j < ROWS * ROW_BYTES; j += BX * BY) {
        int r = j / ROW_BYTES, c = j - r * ROW_BYTES;
        int gy = min(max(y0 - 2 + r, 0), height - 1);
        int gx = min(max(x0 - 2 + c, 0), width - 1);
        tile[j] = img[static_cast<long long>(gy) * width + gx];
    }
    __syncthreads();

    // words[dy*5+dx] packs, for the thread's 4 pixels, the window value at offset (dy-2, dx-2).
    unsigned int words[25];
#pragma unroll
    for (int dy = 0; dy < 5; ++dy) {
        const unsigned int* row = tile32 + (threadIdx.y + dy) * (ROW_BYTES / 4);
        const unsigned int a = row[threadIdx.x], b = row[threadIdx.x + 1];
        words[dy * 5 + 0] = a;
        words[dy * 5 + 1] = __byte_perm(a, b, 0x4321);
        words[dy * 5 + 2] = __byte_perm(a, b, 0x5432);
        words[dy * 5 + 3] = __byte_perm(a, b, 0x6543);
        words[dy * 5 + 4] = b;
    }
    unsigned int prefix = 0;
#pragma unroll
    for (int bit = 7; bit >= 0; --bit) {
        const unsigned int bitw = 0x01010101u << bit;
        const unsigned int cand = prefix | bitw;
        unsigned int below = 0;
#pragma unroll
        for (int k = 0; k < 25; ++k) below = __vsub4(below, __vcmpltu4(words[k], cand));  // +1 per byte where word < cand
        prefix |= bitw & __vcmpleu4(below, 0x0C0C0C0Cu);                                   // keep the bit if <= 12 below
    }

    const int y = y0 + threadIdx.y;
    const int x = x0 + threadIdx.x * 4;
    if (y >= height || x >= width) return;
    unsigned char* dst = out + static_cast<long long>(y) * width + x;
    if ((width & 3) == 0) {
        *reinterpret_cast<unsigned int*>(dst) = prefix;  // x is a multiple of 4 and rows start 4-aligned
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (x + k < width) dst[k] = static_cast<unsigned char>(prefix >> (8 * k));
    }
}

void median_filter_5x5(int height, int width, const unsigned char* img, unsigned char* out) {
    if (height <= 0 || width <= 0) return;
    dim3 block(BX, BY);
    dim3 grid((width + TILE_W - 1) / TILE_W, (height + BY - 1) / BY);
    median5_radix<<<grid, block>>>(height, width, img, out);
}
