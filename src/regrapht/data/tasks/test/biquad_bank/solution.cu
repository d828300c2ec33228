// steps: shared_memory_tiling, memory_coalescing, bank_conflict_avoidance, data_layout_transform, loop_unrolling
// A warp owns 32 channels and walks them 32 samples at a time: it reads the 32 x 32 tile with one
// fully coalesced 128-byte load per channel row (the port's warp touches 32 rows per load), transposes
// it through a padded shared tile (33 columns: conflict-free both ways), runs each lane's channel
// recurrence on its tile row in place, and stores the outputs back row by row, coalesced. The next
// tile's 32 loads are issued into registers before the current tile's recurrence, so the memory
// latency hides behind the arithmetic. Only __syncwarp is needed: each warp has its own tile.
constexpr int WARPS = 4, THREADS = WARPS * 32;

__global__ void __launch_bounds__(THREADS) biquad_tiles(int channels, int n, const float* __restrict__ x,
                                                        const float* __restrict__ coef, float* __restrict__ y) {
    __shared__ float tile[WARPS][32][33];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int c0 = (blockIdx.x * WARPS + warp) * 32;
    if (c0 >= channels) return;  // whole warps only
    const int rows = min(32, channels - c0);
    const bool live = lane < rows;
    float k[10];
#pragma unroll
    for (int q = 0; q < 10; ++q) k[q] = live ? __ldg(coef + 10LL * (c0 + lane) + q) : 0.0f;
    float (*t)[33] = tile[warp];
    const float* base = x + (long long)c0 * n;
    float* obase = y + (long long)c0 * n;

    float pre[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) pre[r] = (r < rows && lane < n) ? __ldg(base + (long long)r * n + lane) : 0.0f;
    float z00 = 0.0f, z01 = 0.0f, z10 = 0.0f, z11 = 0.0f;
    for (int i0 = 0; i0 < n; i0 += 32) {
#pragma unroll
        for (int r = 0; r < 32; ++r) t[r][lane] = pre[r];
        __syncwarp();
        const int next = i0 + 32 + lane;
#pragma unroll
        for (int r = 0; r < 32; ++r) pre[r] = (r < rows && next < n) ? __ldg(base + (long long)r * n + next) : 0.0f;
        const int len = min(32, n - i0);
        if (live) {
#pragma unroll
            for (int s = 0; s < 32; ++s) {
                if (s >= len) break;
                const float u = t[lane][s];
                const float v = fmaf(k[0], u, z00);
                z00 = fmaf(k[1], u, fmaf(-k[3], v, z01));
                z01 = fmaf(k[2], u, -k[4] * v);
                const float w = fmaf(k[5], v, z10);
                z10 = fmaf(k[6], v, fmaf(-k[8], w, z11));
                z11 = fmaf(k[7], v, -k[9] * w);
                t[lane][s] = w;
            }
        }
        __syncwarp();
        if (i0 + lane < n) {
#pragma unroll
            for (int r = 0; r < 32; ++r)
                if (r < rows) obase[(long long)r * n + i0 + lane] = t[r][lane];
        }
        __syncwarp();
    }
}

void biquad_bank(int channels, int n, const float* x, const float* coef, float* y) {
    if (channels <= 0 || n <= 0) return;
    const int per_block = WARPS * 32;
    biquad_tiles<<<(channels + per_block - 1) / per_block, THREADS>>>(channels, n, x, coef, y);
}
