// steps: data_layout_transform, algorithmic_change, warp_shuffle_reduction, vectorized_access
// naive.cu moves a byte per cell and makes nine byte loads per cell and generation, and every
// generation crosses DRAM (the 64 MB grid does not fit L2). Here the grid is packed 32 cells to a
// 32-bit word once (bit j of word w of a row is column 32w + j), every generation runs on the packed
// grid (8 MB at the bench size: the two packed grids stay in L2), and the result is unpacked once.
// A thread owns a word: the rule is evaluated for its 32 cells at once in bit-parallel logic. The
// eight neighbour masks are the words above, at and below, shifted by one bit with the carry from
// the neighbouring word, and a bit-sliced counter adds them (s0, s1 the count mod 4, s2 "four or
// more"): a cell lives when the count is 3, or 2 and it is alive. A warp holds 32 consecutive words of
// a row, so the neighbouring words come from the adjacent lanes by shuffles; only the warp's first
// and last lane load one more word each. Packing and unpacking move 16 bytes per access where rows
// are 16-byte aligned.
#define THREADS 256
#define FULL 0xFFFFFFFFu

// four cells (bytes of 0 or 1) to four bits, and back
__device__ __forceinline__ unsigned int pack4(unsigned int x) { return (x | x >> 7 | x >> 14 | x >> 21) & 0xFu; }
__device__ __forceinline__ unsigned int unpack4(unsigned int nib) {
    return (nib & 1u) | (nib & 2u) << 7 | (nib & 4u) << 14 | (nib & 8u) << 21;
}

template <bool VEC>
__global__ void pack_cells(int rows, int cols, int wpr, const unsigned char* cells, unsigned int* grid) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * wpr) return;
    const long long r = idx / wpr;
    const int w = (int)(idx - r * wpr);
    const unsigned char* src = cells + r * cols + 32 * w;
    unsigned int word = 0;
    if (VEC && 32 * w + 32 <= cols) {
        const uint4 a = *reinterpret_cast<const uint4*>(src), b = *reinterpret_cast<const uint4*>(src + 16);
        word = pack4(a.x) | pack4(a.y) << 4 | pack4(a.z) << 8 | pack4(a.w) << 12 | pack4(b.x) << 16 |
               pack4(b.y) << 20 | pack4(b.z) << 24 | pack4(b.w) << 28;
    } else {
        const int n = min(32, cols - 32 * w);
        for (int j = 0; j < n; ++j) word |= (unsigned int)(src[j] != 0) << j;
    }
    grid[idx] = word;
}

template <bool VEC>
__global__ void unpack_cells(int rows, int cols, int wpr, const unsigned int* grid, unsigned char* out) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * wpr) return;
    const long long r = idx / wpr;
    const int w = (int)(idx - r * wpr);
    unsigned char* dst = out + r * cols + 32 * w;
    const unsigned int word = grid[idx];
    if (VEC && 32 * w + 32 <= cols) {
        *reinterpret_cast<uint4*>(dst) = make_uint4(unpack4(word), unpack4(word >> 4), unpack4(word >> 8), unpack4(word >> 12));
        *reinterpret_cast<uint4*>(dst + 16) =
            make_uint4(unpack4(word >> 16), unpack4(word >> 20), unpack4(word >> 24), unpack4(word >> 28));
    } else {
        const int n = min(32, cols - 32 * w);
        for (int j = 0; j < n; ++j) dst[j] = (word >> j) & 1u;
    }
}

// One generation on the packed grid. Threads run over rows x wpad words (wpad: wpr rounded up to a
// multiple of 32), so a warp lies within one row; lanes past the row's end hold zero words (dead).
__global__ void life_packed(int rows, int wpr, int wpad, unsigned int last_mask, const unsigned int* now,
                            unsigned int* next) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * wpad) return;  // whole warps: rows * wpad and the block are multiples of 32
    const int r = (int)(idx / wpad), w = (int)(idx - (long long)r * wpad);
    const int lane = threadIdx.x & 31;
    const bool valid = w < wpr;
    const long long at = (long long)r * wpr + w;
    const bool has_up = r > 0, has_down = r + 1 < rows;
    unsigned int up = 0, mid = 0, down = 0;
    if (valid) {
        mid = now[at];
        if (has_up) up = now[at - wpr];
        if (has_down) down = now[at + wpr];
    }
    unsigned int up_l = __shfl_up_sync(FULL, up, 1), mid_l = __shfl_up_sync(FULL, mid, 1),
                 down_l = __shfl_up_sync(FULL, down, 1);
    unsigned int up_r = __shfl_down_sync(FULL, up, 1), mid_r = __shfl_down_sync(FULL, mid, 1),
                 down_r = __shfl_down_sync(FULL, down, 1);
    if (lane == 0) {  // the word left of the warp (none at a row's start)
        up_l = mid_l = down_l = 0;
        if (w > 0) {
            mid_l = now[at - 1];
            if (has_up) up_l = now[at - 1 - wpr];
            if (has_down) down_l = now[at - 1 + wpr];
        }
    }
    if (lane == 31) {  // the word right of the warp (none past a row's end)
        up_r = mid_r = down_r = 0;
        if (w + 1 < wpr) {
            mid_r = now[at + 1];
            if (has_up) up_r = now[at + 1 - wpr];
            if (has_down) down_r = now[at + 1 + wpr];
        }
    }
    // west neighbour of bit j is bit j - 1 (bit 31 of the left word for j = 0); east is bit j + 1
    const unsigned int around[8] = {(up << 1) | (up_l >> 31),    up,   (up >> 1) | (up_r << 31),
                                    (mid << 1) | (mid_l >> 31),  (mid >> 1) | (mid_r << 31),
                                    (down << 1) | (down_l >> 31), down, (down >> 1) | (down_r << 31)};
    unsigned int s0 = 0, s1 = 0, s2 = 0;
    for (int k = 0; k < 8; ++k) {
        const unsigned int c0 = s0 & around[k];
        s0 ^= around[k];
        const unsigned int c1 = s1 & c0;
        s1 ^= c0;
        s2 |= c1;
    }
    unsigned int born = s1 & ~s2 & (s0 | mid);
    if (w == wpr - 1) born &= last_mask;  // columns past the grid stay dead
    if (valid) next[at] = born;
}

void life_steps(int rows, int cols, int steps, const unsigned char* cells, unsigned char* out, unsigned char* work) {
    if (rows <= 0 || cols <= 0) return;
    const int wpr = (cols + 31) / 32, wpad = (wpr + 31) / 32 * 32;
    const long long words = (long long)rows * wpr;
    // two packed grids in the workspace, from its first 4-byte boundary
    unsigned int* a = reinterpret_cast<unsigned int*>((reinterpret_cast<unsigned long long>(work) + 3) & ~3ull);
    unsigned int* b = a + words;
    const unsigned int last_mask = cols % 32 == 0 ? FULL : (1u << (cols % 32)) - 1u;
    const bool vec = cols % 16 == 0 && ((reinterpret_cast<unsigned long long>(cells) |
                                         reinterpret_cast<unsigned long long>(out)) & 15) == 0;
    const unsigned word_blocks = (unsigned)((words + THREADS - 1) / THREADS);
    if (vec)
        pack_cells<true><<<word_blocks, THREADS>>>(rows, cols, wpr, cells, a);
    else
        pack_cells<false><<<word_blocks, THREADS>>>(rows, cols, wpr, cells, a);
    const unsigned step_blocks = (unsigned)(((long long)rows * wpad + THREADS - 1) / THREADS);
    for (int s = 0; s < steps; ++s) {
        life_packed<<<step_blocks, THREADS>>>(rows, wpr, wpad, last_mask, a, b);
        unsigned int* t = a;
        a = b;
        b = t;
    }
    if (vec)
        unpack_cells<true><<<word_blocks, THREADS>>>(rows, cols, wpr, a, out);
    else
        unpack_cells<false><<<word_blocks, THREADS>>>(rows, cols, wpr, a, out);
}
