// steps: parallelize, warp_shuffle_reduction, thread_coarsening, vectorized_access, algorithmic_change
// One pass: a scan with decoupled look-back over tiles of 4096 elements (256 threads x 16). A block
// takes the next tile in launch order (an atomic counter, so every tile it waits on is already
// running), loads its 16 consecutive elements with four 16-byte loads a thread, flags the run heads
// and scans, over the block with shuffles, two things at once: the number of heads (a run's slot)
// and the position of the latest head (the start of the run still open). It publishes its tile's
// (count, latest head) at once, then one warp reads its predecessors' published words 32 at a time,
// summing counts and taking the largest head position back to the nearest tile that has published
// its inclusive prefix, and publishes its own. Flag, count and position share one 64-bit word, so
// a word is read whole or not at all. Each head then writes its value, and the length of the run
// before it (its start minus the previous head, which the position scan gives even when that head
// is tiles back); the last tile writes the last run's length and the run count. Against the
// one-pass solution it replaces (0.187 ms on an H100, 0.64x CUB): no staging of the tile through
// shared memory, and the look-back reads 32 predecessors' words per step with one warp where one
// thread walked back one word at a time.
#include <cstdint>

constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;

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
    __shared__ int s_tile, s_excl_count, s_excl_last;
    __shared__ int warp_count[kThreads / 32], warp_last[kThreads / 32];
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) s_tile = (int)atomicAdd(tile_counter, 1u);
    __syncthreads();
    const int tile = s_tile;
    const long long i0 = (long long)tile * kTile + (long long)threadIdx.x * kItems;
    int v[kItems];
    if (aligned && i0 + kItems <= n) {
        const int4* v4 = reinterpret_cast<const int4*>(values + i0);
#pragma unroll
        for (int q = 0; q < kItems / 4; ++q) {
            const int4 w = __ldg(v4 + q);
            v[4 * q] = w.x, v[4 * q + 1] = w.y, v[4 * q + 2] = w.z, v[4 * q + 3] = w.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < kItems; ++k) v[k] = i0 + k < n ? __ldg(values + i0 + k) : 0;
    }
    // The element before this thread's first: the previous lane's last, or a load for lane 0.
    int prev = __shfl_up_sync(full, v[kItems - 1], 1);
    if (lane == 0 && i0 > 0 && i0 < n) prev = __ldg(values + i0 - 1);
    unsigned heads = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
        const long long i = i0 + k;
        const int before = k == 0 ? prev : v[k - 1];
        if (i < n && (i == 0 || v[k] != before)) heads |= 1u << k;
    }
    const int cnt = __popc(heads);
    const int last = heads ? (int)(i0 + 31 - __clz(heads)) : -1;
    // Block scans: inclusive sum of cnt, inclusive max of last.
    int c_in = cnt, l_in = last;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int c = __shfl_up_sync(full, c_in, d), l = __shfl_up_sync(full, l_in, d);
        if (lane >= d) c_in += c, l_in = max(l_in, l);
    }
    if (lane == 31) warp_count[warp] = c_in, warp_last[warp] = l_in;
    __syncthreads();
    int c_before = 0, l_before = -1, c_tile = 0, l_tile = -1;
#pragma unroll
    for (int w = 0; w < kThreads / 32; ++w) {
        if (w < warp) c_before += warp_count[w], l_before = max(l_before, warp_last[w]);
        c_tile += warp_count[w], l_tile = max(l_tile, warp_last[w]);
    }
    int l_ex = __shfl_up_sync(full, l_in, 1);
    if (lane == 0) l_ex = -1;
    const int c_ex = c_before + c_in - cnt;  // heads before this thread, in the tile
    l_ex = max(l_ex, l_before);              // latest head before this thread, in the tile
    // Decoupled look-back.
    if (warp == 0) {
        if (tile == 0) {
            if (lane == 0) {
                atomicExch(status, rle_pack(kPrefix, c_tile, l_tile));
                s_excl_count = 0, s_excl_last = -1;
            }
        } else {
            if (lane == 0) atomicExch(status + tile, rle_pack(kAggregate, c_tile, l_tile));
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
                int c = lane <= stop ? rle_count(s) : 0, l = lane <= stop ? rle_last(s) : -1;
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) {
                    c += __shfl_xor_sync(full, c, o);
                    l = max(l, __shfl_xor_sync(full, l, o));
                }
                ex_c += c, ex_l = max(ex_l, l);
                if (prefix) break;
            }
            if (lane == 0) {
                atomicExch(status + tile, rle_pack(kPrefix, ex_c + c_tile, max(ex_l, l_tile)));
                s_excl_count = ex_c, s_excl_last = ex_l;
            }
        }
    }
    __syncthreads();
    const int excl_count = s_excl_count, excl_last = s_excl_last;
    int slot = excl_count + c_ex;
    int prev_head = max(excl_last, l_ex);
    while (heads) {
        const int k = __ffs(heads) - 1;
        heads &= heads - 1;
        const int i = (int)(i0 + k);
        run_values[slot] = v[k];
        if (slot > 0) run_lengths[slot - 1] = i - prev_head;  // the run before this one ends here
        prev_head = i;
        ++slot;
    }
    if (threadIdx.x == 0 && (long long)(tile + 1) * kTile >= n) {  // the tile holding the last element
        const int runs = excl_count + c_tile;
        run_lengths[runs - 1] = n - max(excl_last, l_tile);
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
    rle_single_pass<<<tiles, kThreads>>>(n, values, aligned, run_values, run_lengths, num_runs, status,
                                         reinterpret_cast<unsigned int*>(status + tiles));
}
