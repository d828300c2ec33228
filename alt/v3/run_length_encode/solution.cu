// steps: parallelize, warp_shuffle_reduction, thread_coarsening, vectorized_access, shared_memory_tiling
// One pass, a scan with decoupled look-back over tiles of kThreads x 16 elements (512 x 16 here), with coalesced
// traffic both ways. A block takes the next tile in launch order (an atomic counter, so every tile
// it waits on is already running). Each warp reads its 512-element slice with four 16-byte loads a
// lane, consecutive lanes on consecutive addresses (one 512-byte row per load), and flags the run
// heads: the element before a lane's four is the previous lane's last (a shuffle), or lane 31's
// last of the previous row, or one global load per warp. Heads are ranked in element order (row,
// lane, component) with ballots over the bits of the per-row head counts (0..4), then over the
// warps. Every head puts its value and position at its rank in shared memory; the tile's
// aggregate (head count, latest head position) goes out at once, and one warp reads its
// predecessors' published words 32 at a time back to the nearest inclusive prefix (count summed,
// latest head position the largest). Flag, count and position share one 64-bit word, so a word is
// read whole or not at all. The block then writes its run values and the run lengths (a head's
// position minus the one before it; the first head's predecessor comes from the look-back) as
// contiguous, coalesced runs of slots; the last tile writes the last run's length and the count.
// The DRAM floor is the input once and the runs once.
#include <cstdint>

constexpr int kThreads = 512;  // 8192-element tiles: half the tiles, look-backs and status words of 256 threads
constexpr int kWarps = kThreads / 32;
constexpr int kRows = 4;                  // 16-byte loads per lane
constexpr int kWarpSlice = 32 * 4 * kRows;  // 512 elements
constexpr int kTile = kWarps * kWarpSlice;

// status word: flag in bits 62-63 (0 not yet, 1 the tile's own aggregate, 2 inclusive prefix),
// head count in bits 31-61, latest head position + 1 in bits 0-30 (0: no head)
constexpr unsigned long long kAggregate = 1ull << 62, kPrefix = 2ull << 62;

__device__ __forceinline__ unsigned long long rle_pack(unsigned long long flag, int count, int last) {
    return flag | ((unsigned long long)count << 31) | (unsigned long long)(last + 1);
}
__device__ __forceinline__ int rle_count(unsigned long long s) { return (int)((s >> 31) & 0x7fffffffull); }
__device__ __forceinline__ int rle_last(unsigned long long s) { return (int)(s & 0x7fffffffull) - 1; }

__global__ void __launch_bounds__(kThreads)
    rle_single_pass(int n, const int* __restrict__ values, bool aligned, int* __restrict__ run_values,
                    int* __restrict__ run_lengths, int* __restrict__ num_runs, unsigned long long* status,
                    unsigned int* tile_counter) {
    extern __shared__ int heads_smem[];  // 64 KiB: past the 48 KiB of static shared memory
    int* head_value = heads_smem;
    int* head_position = heads_smem + kTile;
    __shared__ int s_tile, s_excl_count, s_excl_last;
    __shared__ int warp_heads[kWarps], warp_last[kWarps];
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lanes_below = (1u << lane) - 1u;
    if (threadIdx.x == 0) s_tile = (int)atomicAdd(tile_counter, 1u);
    __syncthreads();
    const int tile = s_tile;
    const long long slice = (long long)tile * kTile + (long long)warp * kWarpSlice;

    int4 v[kRows];
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        const long long i = slice + q * 128 + lane * 4;
        if (aligned && i + 4 <= n) {
            v[q] = __ldg(reinterpret_cast<const int4*>(values + i));
        } else {
            v[q].x = i < n ? __ldg(values + i) : 0;
            v[q].y = i + 1 < n ? __ldg(values + i + 1) : 0;
            v[q].z = i + 2 < n ? __ldg(values + i + 2) : 0;
            v[q].w = i + 3 < n ? __ldg(values + i + 3) : 0;
        }
    }
    // the element before the slice; before element 0 nothing, and position 0 is a head regardless
    const int before_slice = (lane == 0 && slice > 0 && slice < n) ? __ldg(values + slice - 1) : 0;

    // heads: bit 4 q + j for the element at slice + 128 q + 4 lane + j
    unsigned heads = 0;
    int lane_last = -1;  // the lane's latest head position
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        int prev = __shfl_up_sync(full, v[q].w, 1);
        if (q == 0) {
            if (lane == 0) prev = before_slice;
        } else {
            const int row_last = __shfl_sync(full, v[q - 1].w, 31);  // q is a constant once unrolled
            if (lane == 0) prev = row_last;
        }
        const long long i = slice + q * 128 + lane * 4;
        const int e[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int p = j == 0 ? prev : e[j - 1];
            if (i + j < n && (i + j == 0 || e[j] != p)) {
                heads |= 1u << (4 * q + j);
                lane_last = (int)(i + j);
            }
        }
    }
    // rank in element order within the warp: per row, the heads of lower lanes (ballots over the
    // three bits of each lane's count), after the rows before it
    int rank_in_row[kRows];
    int warp_total = 0;
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        const int c = __popc((heads >> (4 * q)) & 15u);
        int below = 0, row_total = 0;
#pragma unroll
        for (int b = 0; b < 3; ++b) {
            const unsigned plane = __ballot_sync(full, (c >> b) & 1);
            below += __popc(plane & lanes_below) << b;
            row_total += __popc(plane) << b;
        }
        rank_in_row[q] = warp_total + below;
        warp_total += row_total;
    }
    const int warp_latest = __reduce_max_sync(full, lane_last);
    if (lane == 0) warp_heads[warp] = warp_total, warp_last[warp] = warp_latest;
    __syncthreads();
    int before_warp = 0, tile_heads = 0, tile_last = -1;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        if (w < warp) before_warp += warp_heads[w];
        tile_heads += warp_heads[w];
        tile_last = max(tile_last, warp_last[w]);
    }
    // every head at its rank in the tile
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
        const long long i = slice + q * 128 + lane * 4;
        const int e[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
        int r = before_warp + rank_in_row[q];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            if ((heads >> (4 * q + j)) & 1u) {
                head_value[r] = e[j];
                head_position[r] = (int)(i + j);
                ++r;
            }
        }
    }
    // decoupled look-back
    if (warp == 0) {
        if (tile == 0) {
            if (lane == 0) {
                atomicExch(status, rle_pack(kPrefix, tile_heads, tile_last));
                s_excl_count = 0, s_excl_last = -1;
            }
        } else {
            if (lane == 0) atomicExch(status + tile, rle_pack(kAggregate, tile_heads, tile_last));
            int ex_c = 0, ex_l = -1;
            for (long long wbase = tile - 1;; wbase -= 32) {
                const long long j = wbase - lane;
                unsigned long long s = rle_pack(kPrefix, 0, -1);  // before tile 0: nothing
                if (j >= 0) {
                    do {
                        s = *reinterpret_cast<volatile unsigned long long*>(status + j);
                    } while ((s >> 62) == 0);
                }
                const unsigned prefix = __ballot_sync(full, (s >> 62) == 2);
                const int stop = prefix ? __ffs(prefix) - 1 : 31;  // the nearest inclusive prefix
                ex_c += __reduce_add_sync(full, lane <= stop ? (unsigned)rle_count(s) : 0u);
                ex_l = max(ex_l, __reduce_max_sync(full, lane <= stop ? rle_last(s) : -1));
                if (prefix) break;
            }
            if (lane == 0) {
                atomicExch(status + tile, rle_pack(kPrefix, ex_c + tile_heads, max(ex_l, tile_last)));
                s_excl_count = ex_c, s_excl_last = ex_l;
            }
        }
    }
    __syncthreads();
    const int excl_count = s_excl_count, excl_last = s_excl_last;
    for (int r = threadIdx.x; r < tile_heads; r += kThreads) {
        const int slot = excl_count + r, position = head_position[r];
        run_values[slot] = head_value[r];
        if (slot > 0) run_lengths[slot - 1] = position - (r > 0 ? head_position[r - 1] : excl_last);
    }
    if (threadIdx.x == 0 && (long long)(tile + 1) * kTile >= n) {  // the tile holding the last element
        const int runs = excl_count + tile_heads;
        run_lengths[runs - 1] = n - max(excl_last, tile_last);
        *num_runs = runs;
    }
}

void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    if (n <= 0) return;
    const int tiles = (n + kTile - 1) / kTile;
    static unsigned long long* status = nullptr;
    static int capacity = 0;
    if (tiles > capacity) {
        if (status) cudaFree(status);
        status = nullptr;
        capacity = 0;
        if (cudaMalloc(&status, (static_cast<size_t>(tiles) + 1) * sizeof(unsigned long long)) != cudaSuccess) {
            status = nullptr;  // asked again next call; the call writes nothing, which the checks reject
            return;
        }
        capacity = tiles;
    }
    // the tile counter lives in the word after the tiles' status
    cudaMemsetAsync(status, 0, (static_cast<size_t>(tiles) + 1) * sizeof(unsigned long long));
    const bool aligned = reinterpret_cast<std::uintptr_t>(values) % 16 == 0;
    constexpr int kHeadBytes = 2 * kTile * static_cast<int>(sizeof(int));
    static bool attribute_set = false;
    if (!attribute_set) {
        cudaFuncSetAttribute(rle_single_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, kHeadBytes);
        attribute_set = true;
    }
    rle_single_pass<<<tiles, kThreads, kHeadBytes>>>(n, values, aligned, run_values, run_lengths, num_runs, status,
                                         reinterpret_cast<unsigned int*>(status + tiles));
}
