// steps: parallelize, work_decomposition, work_efficient_scan, vectorized_access, shared_memory_tiling
// Row pass: one warp per row; each lane takes 4 consecutive pixels (one 32-bit load when the width
// allows), scans them in registers, and the warp combines lane totals with a shuffle scan, carrying
// the row total from chunk to chunk; results leave as 16-byte stores.
// Column pass: a 32x32 block owns 32 adjacent columns and splits the rows into 32 segments; each
// thread sums its segment (coalesced across the 32 columns), the segment totals are scanned in shared
// memory, and each thread rescans its segment from its offset.
constexpr int ROW_WARPS = 8;

__global__ void __launch_bounds__(ROW_WARPS * 32) rows_warp_scan(int height, int width, const unsigned char* __restrict__ img,
                                                                  unsigned int* __restrict__ sat) {
    const int lane = threadIdx.x & 31;
    const int y = blockIdx.x * ROW_WARPS + (threadIdx.x >> 5);
    if (y >= height) return;  // whole warps leave together; no block barrier below
    const unsigned char* row = img + static_cast<long long>(y) * width;
    unsigned int* out = sat + static_cast<long long>(y) * width;
    const bool vec = (width & 3) == 0;
    unsigned int carry = 0;
    for (int base = 0; base < width; base += 128) {
        const int x = base + lane * 4;
        unsigned int v[4] = {0u, 0u, 0u, 0u};
        if (vec && x < width) {
            unsigned int word = *reinterpret_cast<const unsigned int*>(row + x);
            v[0] = word & 0xFF;
            v[1] = (word >> 8) & 0xFF;
            v[2] = (word >> 16) & 0xFF;
            v[3] = word >> 24;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (x + k < width) v[k] = row[x + k];
        }
        v[1] += v[0];
        v[2] += v[1];
        v[3] += v[2];
        unsigned int incl = v[3];
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            unsigned int up = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += up;
        }
        const unsigned int offset = carry + incl - v[3];
        if (vec && x < width) {
            reinterpret_cast<uint4*>(out + x)[0] = make_uint4(v[0] + offset, v[1] + offset, v[2] + offset, v[3] + offset);
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (x + k < width) out[x + k] = v[k] + offset;
        }
        carry += __shfl_sync(0xffffffffu, incl, 31);
    }
}

constexpr int COLS = 32;
constexpr int SEGS = 32;

__global__ void __launch_bounds__(COLS * SEGS) columns_segmented(int height, int width, unsigned int* __restrict__ sat) {
    __shared__ unsigned int totals[SEGS][COLS + 1];
    const int tx = threadIdx.x, seg = threadIdx.y;
    const int x = blockIdx.x * COLS + tx;
    const int seg_len = (height + SEGS - 1) / SEGS;
    const int y0 = min(seg * seg_len, height), y1 = min(y0 + seg_len, height);
    unsigned int sum = 0;
    if (x < width)
        for (int y = y0; y < y1; ++y) sum += sat[static_cast<long long>(y) * width + x];
    totals[seg][tx] = sum;
    __syncthreads();
    if (seg == 0) {
        unsigned int running = 0;
        for (int s = 0; s < SEGS; ++s) {
            unsigned int t = totals[s][tx];
            totals[s][tx] = running;
            running += t;
        }
    }
    __syncthreads();
    if (x < width) {
        unsigned int running = totals[seg][tx];
        for (int y = y0; y < y1; ++y) {
            long long i = static_cast<long long>(y) * width + x;
            running += sat[i];
            sat[i] = running;
        }
    }
}

void integral_image(int height, int width, const unsigned char* img, unsigned int* sat) {
    if (height <= 0 || width <= 0) return;
    rows_warp_scan<<<(height + ROW_WARPS - 1) / ROW_WARPS, ROW_WARPS * 32>>>(height, width, img, sat);
    columns_segmented<<<(width + COLS - 1) / COLS, dim3(COLS, SEGS)>>>(height, width, sat);
}
