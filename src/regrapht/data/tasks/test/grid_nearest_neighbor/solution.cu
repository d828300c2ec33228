// steps: work_decomposition, shared_memory_tiling, memory_coalescing
// One block per strip of 32 cells of one grid row. Because points are sorted by cell index, the
// candidates of the whole strip (cells cx0 - 1 .. cx0 + 32 of rows cy - 1, cy, cy + 1) are three
// contiguous ranges of the point array: the block copies them into shared memory with coalesced
// float2 loads, and each thread then serves points of the strip from shared memory, where the
// three cells of a neighbouring row are again one contiguous range. A strip whose candidates do not
// fit (a very dense region) reads that strip's candidates from global memory instead.
constexpr int kThreads = 128;
constexpr int kStrip = 32;         // cells per block
constexpr int kCapacity = 1536;    // staged candidate points per block

__global__ void __launch_bounds__(kThreads)
    grid_nn_strip(int n, int grid, const float2* __restrict__ xy, const int* __restrict__ cell_start,
                  float* __restrict__ nearest_d2) {
    __shared__ float2 staged[kCapacity];
    const int cy = blockIdx.y;
    const int cx0 = blockIdx.x * kStrip;
    const int cx1 = min(cx0 + kStrip, grid);
    const int halo_lo = max(cx0 - 1, 0), halo_hi = min(cx1 + 1, grid);  // halo cells [lo, hi)

    // Row r (0..2 for cy - 1 .. cy + 1): its candidates are points [first[r], last[r]).
    int first[3], last[3], base[3];
    int total = 0;
#pragma unroll
    for (int r = 0; r < 3; ++r) {
        const int row = cy - 1 + r;
        if (row >= 0 && row < grid) {
            first[r] = cell_start[row * grid + halo_lo];
            last[r] = cell_start[row * grid + halo_hi];
        } else {
            first[r] = last[r] = 0;
        }
        base[r] = total;
        total += last[r] - first[r];
    }
    const bool fits = total <= kCapacity;
    if (fits) {
#pragma unroll
        for (int r = 0; r < 3; ++r)
            for (int j = first[r] + threadIdx.x; j < last[r]; j += kThreads) staged[base[r] + j - first[r]] = xy[j];
    }
    __syncthreads();
    // Point j of row r is src[r][j - shift[r]], in shared memory or, if it did not fit, in global.
    const float2* src[3];
#pragma unroll
    for (int r = 0; r < 3; ++r) src[r] = fits ? staged + base[r] - first[r] : xy;

    const int own_first = cell_start[cy * grid + cx0], own_last = cell_start[cy * grid + cx1];
    for (int i = own_first + threadIdx.x; i < own_last; i += kThreads) {
        const float2 p = fits ? staged[base[1] + i - first[1]] : xy[i];
        const int cx = min(static_cast<int>(p.x * static_cast<float>(grid)), grid - 1);
        const int lo = max(cx - 1, 0), hi = min(cx + 1, grid - 1);
        float best = -1.0f;
#pragma unroll
        for (int r = 0; r < 3; ++r) {
            const int row = cy - 1 + r;
            if (row < 0 || row >= grid) continue;
            const int j0 = cell_start[row * grid + lo], j1 = cell_start[row * grid + hi + 1];
            for (int j = j0; j < j1; ++j) {
                if (j == i) continue;
                const float2 q = src[r][j];
                const float dx = q.x - p.x, dy = q.y - p.y;
                const float d2 = dx * dx + dy * dy;
                if (best < 0.0f || d2 < best) best = d2;
            }
        }
        nearest_d2[i] = best;
    }
}

void grid_nearest_neighbor(int n, int grid, const float* xy, const int* cell_start, float* nearest_d2) {
    if (n <= 0 || grid <= 0) return;
    const dim3 blocks((grid + kStrip - 1) / kStrip, grid);
    grid_nn_strip<<<blocks, kThreads>>>(n, grid, reinterpret_cast<const float2*>(xy), cell_start, nearest_d2);
}
