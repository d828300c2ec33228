// steps: parallelize, algorithmic_change, work_decomposition, shared_memory_tiling, memory_coalescing, register_tiling, loop_unrolling, read_only_cache
// One warp per segment, rank sort in shared memory. The warp loads its segment's keys (at most
// 256) into shared memory with coalesced reads; each lane keeps up to eight of the keys in
// registers and, in one pass over the shared keys (each shared read is a broadcast), counts for
// each of them the keys that must precede it: smaller keys, and equal keys at smaller positions,
// which makes the order stable. The rank is the pair's output slot. Work per segment is spread
// over 32 lanes instead of one thread, and global memory is touched once per pair.
constexpr int kWarps = 8;
constexpr int kMaxSegment = 256;
constexpr int kPerLane = kMaxSegment / 32;

__global__ void __launch_bounds__(kWarps * 32)
    rank_sort_segments(int segments, const int* __restrict__ offsets, const unsigned int* __restrict__ keys,
                       const int* __restrict__ values, unsigned int* __restrict__ sorted_keys,
                       int* __restrict__ sorted_values) {
    __shared__ unsigned int s_keys[kWarps][kMaxSegment];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int s = blockIdx.x * kWarps + warp;
    if (s >= segments) return;
    const int begin = offsets[s];
    const int len = offsets[s + 1] - begin;
    unsigned int* seg = s_keys[warp];
    for (int i = lane; i < len; i += 32) seg[i] = keys[begin + i];
    __syncwarp();

    unsigned int mine[kPerLane];
    int rank[kPerLane];
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
        const int i = lane + 32 * t;
        mine[t] = i < len ? seg[i] : 0u;
        rank[t] = 0;
    }
    const int used = (len + 31) / 32;  // register slots holding a key in at least one lane
    for (int j = 0; j < len; ++j) {
        const unsigned int other = seg[j];
#pragma unroll
        for (int t = 0; t < kPerLane; ++t) {
            if (t < used) rank[t] += (other < mine[t]) | ((other == mine[t]) & (j < lane + 32 * t));
        }
    }
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
        const int i = lane + 32 * t;
        if (i < len) {
            sorted_keys[begin + rank[t]] = mine[t];
            sorted_values[begin + rank[t]] = values[begin + i];
        }
    }
}

void segmented_sort_pairs(int n, int segments, const int* offsets, const unsigned int* keys, const int* values,
                          unsigned int* sorted_keys, int* sorted_values) {
    (void)n;
    if (segments <= 0) return;
    rank_sort_segments<<<(segments + kWarps - 1) / kWarps, kWarps * 32>>>(segments, offsets, keys, values,
                                                                          sorted_keys, sorted_values);
}
