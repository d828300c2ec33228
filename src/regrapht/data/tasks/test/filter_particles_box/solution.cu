// steps: parallelize, thread_coarsening, vectorized_access, work_efficient_scan, library_primitive, kernel_fusion
// Scan-based stable compaction in three launches instead of a serial scan:
// (1) each 2048-particle tile counts its selected particles (two 16-byte loads per record,
//     __syncthreads_count per 256-particle step); (2) one CUB exclusive scan over the tile counts,
//     with an extra zero entry so that its last element is the total; (3) each tile re-evaluates
//     the selection and ranks its particles in order with warp ballots and a scan of the 8 warp
//     totals, scatters positions and indices, writes the padding of its own slots past the total,
//     and block 0 stores count[0] -- no separate fill or count kernels.
#include <cub/cub.cuh>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;

__device__ __forceinline__ bool load_and_select(const float4* __restrict__ rec, long long i, float box_lo, float box_hi,
                                                float min_mass, float4& pos) {
    pos = __ldg(rec + 2 * i);            // x, y, z, vx
    const float4 rest = __ldg(rec + 2 * i + 1);  // vy, vz, mass, charge
    const bool inside = pos.x >= box_lo && pos.x < box_hi && pos.y >= box_lo && pos.y < box_hi && pos.z >= box_lo &&
                        pos.z < box_hi;
    return inside && rest.z >= min_mass;
}

__global__ void __launch_bounds__(kThreads)
    tile_counts(int n, float box_lo, float box_hi, float min_mass, const float4* __restrict__ rec, int* __restrict__ counts) {
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
    int total = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const long long i = base + k * kThreads + threadIdx.x;
        float4 pos;
        const bool keep = i < n && load_and_select(rec, i, box_lo, box_hi, min_mass, pos);
        total += __syncthreads_count(keep);
    }
    if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

__global__ void __launch_bounds__(kThreads)
    tile_scatter(int n, int tiles, float box_lo, float box_hi, float min_mass, const float4* __restrict__ rec,
                 const int* __restrict__ offsets, float* __restrict__ out_x, float* __restrict__ out_y,
                 float* __restrict__ out_z, int* __restrict__ out_index, int* __restrict__ count) {
    __shared__ int warp_total[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned int lanes_below = (1u << lane) - 1u;
    const int selected_total = offsets[tiles];
    if (blockIdx.x == 0 && threadIdx.x == 0) count[0] = selected_total;
    int running = offsets[blockIdx.x];
    const long long base = static_cast<long long>(blockIdx.x) * kTile;
    for (int k = 0; k < kItems; ++k) {
        const long long i = base + k * kThreads + threadIdx.x;
        float4 pos = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const bool keep = i < n && load_and_select(rec, i, box_lo, box_hi, min_mass, pos);
        const unsigned int votes = __ballot_sync(0xffffffffu, keep);
        if (lane == 0) warp_total[warp] = __popc(votes);
        __syncthreads();
        int before = 0, step_total = 0;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) {
            const int t = warp_total[w];
            before += w < warp ? t : 0;
            step_total += t;
        }
        if (keep) {
            const int s = running + before + __popc(votes & lanes_below);
            out_x[s] = pos.x;
            out_y[s] = pos.y;
            out_z[s] = pos.z;
            out_index[s] = static_cast<int>(i);
        }
        if (i < n && i >= selected_total) {
            out_x[i] = 0.0f;
            out_y[i] = 0.0f;
            out_z[i] = 0.0f;
            out_index[i] = -1;
        }
        running += step_total;
        __syncthreads();  // warp_total is rewritten in the next step
    }
}

void filter_particles_box(int n, float box_lo, float box_hi, float min_mass, const float* particles, float* out_x,
                          float* out_y, float* out_z, int* out_index, int* count) {
    if (n <= 0) {
        cudaMemsetAsync(count, 0, sizeof(int), 0);
        return;
    }
    const int tiles = (n + kTile - 1) / kTile;
    static int* offsets = nullptr;
    static void* scan_temp = nullptr;
    static int tile_cap = 0;
    static size_t scan_cap = 0;
    if (tiles + 1 > tile_cap) {
        if (offsets) cudaFree(offsets);
        cudaMalloc(&offsets, static_cast<size_t>(tiles + 1) * sizeof(int));
        tile_cap = tiles + 1;
    }
    size_t scan_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, offsets, offsets, tiles + 1);
    if (scan_bytes > scan_cap) {
        if (scan_temp) cudaFree(scan_temp);
        cudaMalloc(&scan_temp, scan_bytes);
        scan_cap = scan_bytes;
    }
    const float4* rec = reinterpret_cast<const float4*>(particles);
    cudaMemsetAsync(offsets + tiles, 0, sizeof(int), 0);
    tile_counts<<<tiles, kThreads>>>(n, box_lo, box_hi, min_mass, rec, offsets);
    cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, offsets, offsets, tiles + 1);
    tile_scatter<<<tiles, kThreads>>>(n, tiles, box_lo, box_hi, min_mass, rec, offsets, out_x, out_y, out_z, out_index,
                                      count);
}
