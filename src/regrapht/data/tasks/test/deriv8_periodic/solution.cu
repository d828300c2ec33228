// steps: parallelize, shared_memory_tiling
// Each block stages its tile plus a 4-cell halo on both sides in shared memory (wrapping at the ends),
// so every input element is read from DRAM once and the modulo arithmetic only touches the halo.
constexpr int BLOCK = 256;
constexpr int HALO = 4;

__global__ void __launch_bounds__(BLOCK) deriv8_tiled(int n, const float* __restrict__ u, float inv_h,
                                                       float* __restrict__ du) {
    __shared__ float tile[BLOCK + 2 * HALO];
    const long long base = static_cast<long long>(blockIdx.x) * BLOCK;
    const int i = static_cast<int>(base) + threadIdx.x;
    // Interior of the tile: one coalesced load per thread.
    if (i < n) tile[HALO + threadIdx.x] = u[i];
    // Halo: the first 2*HALO threads load the cells left of the tile and right of it (periodic wrap).
    if (threadIdx.x < 2 * HALO) {
        int offset = threadIdx.x < HALO ? -HALO + static_cast<int>(threadIdx.x)
                                         : BLOCK + static_cast<int>(threadIdx.x) - HALO;
        long long g = base + offset;
        int last_in_tile = static_cast<int>(min(static_cast<long long>(BLOCK), n - base));  // valid cells
        // Right halo sits right after the last valid cell of this tile (matters for the final, partial tile).
        if (threadIdx.x >= HALO) g = base + last_in_tile + (threadIdx.x - HALO);
        int slot = threadIdx.x < HALO ? static_cast<int>(threadIdx.x)
                                      : HALO + last_in_tile + static_cast<int>(threadIdx.x) - HALO;
        long long w = g % n;
        if (w < 0) w += n;
        tile[slot] = u[w];
    }
    __syncthreads();
    if (i >= n) return;
    const float* c = tile + HALO + threadIdx.x;
    float acc = (4.0f / 5.0f) * (c[1] - c[-1]);
    acc += (-1.0f / 5.0f) * (c[2] - c[-2]);
    acc += (4.0f / 105.0f) * (c[3] - c[-3]);
    acc += (-1.0f / 280.0f) * (c[4] - c[-4]);
    du[i] = acc * inv_h;
}

void deriv8_periodic(int n, const float* u, float inv_h, float* du) {
    if (n <= 0) return;
    int blocks = static_cast<int>((static_cast<long long>(n) + BLOCK - 1) / BLOCK);
    deriv8_tiled<<<blocks, BLOCK>>>(n, u, inv_h, du);
}
