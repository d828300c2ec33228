// steps: shared_memory_tiling, memory_coalescing, bank_conflict_avoidance, vectorized_access, algorithmic_change
// naive.cu keeps a thread per message and Sarwate's byte loop, so every step waits on the previous
// table lookup, and its byte loads are 32 messages 4 KB apart: 32 cache lines per warp instruction.
// Two changes:
// - Slicing-by-8 (eight 256-entry tables, T_k[b] = T_{k-1}[b] >> 8 ^ T_0[T_{k-1}[b] & 0xFF]): eight
//   message bytes enter the register at once, as eight independent lookups XORed together, instead of
//   eight dependent rounds. The tables (8 KB) are built by each block in shared memory.
// - A warp stages its 32 messages 128 bytes at a time in shared memory: each 16-byte load instruction
//   covers four messages' 128 contiguous bytes (four whole lines), and each lane then reads its own
//   message back 16 bytes at a time. Rows are padded to 144 bytes, so the eight lanes of a
//   quarter-warp read eight distinct 16-byte bank groups.
// Messages whose length is not a multiple of 16 (their starts are not 16-byte aligned) take the
// byte loop over the shared table.
#define WARPS 4
#define THREADS (WARPS * 32)
#define SEG 128              // bytes of each message staged per round
#define PIECES (SEG / 16)    // 16-byte pieces of a message per round

__device__ __forceinline__ unsigned int slice8(const unsigned int (*table)[256], unsigned int r, unsigned int lo,
                                               unsigned int hi) {
    r ^= lo;  // the first four bytes, little-endian, meet the register's low bytes first
    return table[7][r & 0xFFu] ^ table[6][(r >> 8) & 0xFFu] ^ table[5][(r >> 16) & 0xFFu] ^ table[4][r >> 24] ^
           table[3][hi & 0xFFu] ^ table[2][(hi >> 8) & 0xFFu] ^ table[1][(hi >> 16) & 0xFFu] ^ table[0][hi >> 24];
}

__global__ void crc_sliced(int count, int len, const unsigned char* data, unsigned int* crc, bool vector_path) {
    __shared__ unsigned int table[8][256];
    __shared__ uint4 tile[WARPS][32][PIECES + 1];
    for (int e = threadIdx.x; e < 256; e += THREADS) {
        unsigned int r = e;
        for (int bit = 0; bit < 8; ++bit) r = (r >> 1) ^ (0xEDB88320u & (0u - (r & 1u)));
        table[0][e] = r;
    }
    __syncthreads();
    for (int k = 1; k < 8; ++k) {
        for (int e = threadIdx.x; e < 256; e += THREADS) {
            const unsigned int prev = table[k - 1][e];
            table[k][e] = (prev >> 8) ^ table[0][prev & 0xFFu];
        }
        __syncthreads();
    }

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long first = ((long long)blockIdx.x * WARPS + warp) * 32;  // the warp's first message
    if (first >= count) return;
    const long long m = first + lane;
    const bool live = m < count;
    unsigned int r = 0xFFFFFFFFu;
    if (vector_path) {
        uint4(*rows)[PIECES + 1] = tile[warp];
        for (int seg = 0; seg < len; seg += SEG) {
            const int pieces = min(SEG, len - seg) / 16;
            if (pieces == PIECES) {  // four messages' 128 bytes per instruction
                for (int t = 0; t < PIECES; ++t) {
                    const int row = (lane >> 3) + 4 * t, q = lane & 7;
                    if (first + row < count)
                        rows[row][q] = *reinterpret_cast<const uint4*>(data + (first + row) * len + seg + 16 * q);
                }
            } else {  // the last, shorter round of a length that is not a multiple of SEG
                for (int p = lane; p < 32 * pieces; p += 32) {
                    const int row = p / pieces, q = p - row * pieces;
                    if (first + row < count)
                        rows[row][q] = *reinterpret_cast<const uint4*>(data + (first + row) * len + seg + 16 * q);
                }
            }
            __syncwarp();
            if (live) {
                for (int q = 0; q < pieces; ++q) {
                    const uint4 v = rows[lane][q];
                    r = slice8(table, r, v.x, v.y);
                    r = slice8(table, r, v.z, v.w);
                }
            }
            __syncwarp();  // the rows are refilled next round
        }
    } else if (live) {
        const unsigned char* message = data + m * len;
        for (int i = 0; i < len; ++i) r = table[0][(r ^ message[i]) & 0xFFu] ^ (r >> 8);
    }
    if (live) crc[m] = r ^ 0xFFFFFFFFu;
}

void crc32_messages(int count, int len, const unsigned char* data, unsigned int* crc) {
    if (count <= 0) return;
    const bool vector_path = len % 16 == 0 && (reinterpret_cast<unsigned long long>(data) & 15) == 0;
    const long long blocks = ((long long)count + THREADS - 1) / THREADS;
    crc_sliced<<<(unsigned)blocks, THREADS>>>(count, len, data, crc, vector_path);
}
