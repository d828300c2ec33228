// steps: parallelize, algorithmic_change, kernel_fusion, memory_coalescing, atomic_operations, read_only_cache, loop_unrolling, warp_shuffle_reduction, persistent_kernel, cooperative_groups
// Delta-stepping over flag arrays, every phase in one persistent cooperative kernel. Bellman-Ford
// relaxes a vertex each time its distance drops, and on this graph (out-degree 8, lengths 1-100) a
// data-driven Bellman-Ford relaxes about 4 edges per stored edge before the distances settle. Here a
// phase relaxes only the flagged vertices whose distance is below a threshold T (the current band of
// width delta); the others keep their flag for a later band. T rises to the band of the nearest
// flagged vertex when a phase lowers nothing below T. Distances below T are then nearly final when
// they are relaxed: 1.06 relaxations per edge in 75 phases at delta = 25 (a CPU emulation of the bench
// graph, a phase seeing only the distances of the phase before; data-driven Bellman-Ford: 4.04
// relaxations per edge in 33 sweeps).
//
// Flags are bytes in two arrays, read this phase and written for the next (no flag atomics, no fences: a
// phase publishes its lowerings through the grid.sync() that ends it; a vertex lowered while its own
// relaxation runs is flagged again and relaxed next phase). A phase scans the 4 MB of flags
// coalesced, four to a 32-bit load, and each block reports "lowered something below T" and the least
// distance left above T (warp shuffles, then one atomic per block), so every thread computes the same
// next T after the grid.sync().
// delta is four mean edge lengths per mean out-degree, from a sample of the weights (a wider band
// trades phases for repeated relaxations; correctness does not depend on it). A per-phase launch
// loop is the fallback where a cooperative launch is refused.
//
// The solution before this one (vertex-order Bellman-Ford sweeps with a fence and an atomic flag per
// lowering) measured 1.19x naive on the H100: it relaxed ~4x the edges.
#include <climits>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kSample = 8192;  // weights sampled for delta
constexpr int kEdgesPerTrip = 4;

// ctl layout: three rotating phase slots of {lowered below T, least distance at or above T}, then delta
constexpr int kDeltaSlot = 6;

__device__ __forceinline__ int warp_min(int x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = min(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

// Flags are bytes padded to whole 32-bit words.
__host__ __device__ __forceinline__ int flag_words(int vertices) { return vertices / 4 + (vertices % 4 != 0); }

// The flags of word i: only the source's byte is set at the start.
__device__ __forceinline__ unsigned initial_flags(int i, int source) {
    return i == source / 4 ? 1u << (8 * (source % 4)) : 0u;
}

// One block computes delta from the first kSample weights (all threads of block 0 must call it).
__device__ void compute_delta(int vertices, int edges, const int* __restrict__ weights, int* ctl) {
    __shared__ long long part[kThreads / 32];
    const int n = min(edges, kSample);
    long long s = 0;
    for (int e = threadIdx.x; e < n; e += blockDim.x) s += __ldg(weights + e);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long total = 0;
        for (int i = 0; i < kThreads / 32; ++i) total += part[i];
        const double mean_w = n > 0 ? (double)total / n : 1.0, degree = n > 0 ? (double)edges / vertices : 1.0;
        ctl[kDeltaSlot] = (int)fmax(1.0, fmin(4.0 * mean_w / degree, (double)(INT_MAX / 4)));
    }
}

// Relaxes this thread's flagged vertices below T and carries the others to the next phase's flags;
// then each block publishes whether it lowered a distance below T and the least distance left at or
// above T (every thread of a block of kThreads calls it: shuffles and a barrier follow the loop).
__device__ __forceinline__ void phase(int vertices, int first, int stride, int T, const int* __restrict__ row_ptr,
                                      const int* __restrict__ col_idx, const int* __restrict__ weights, int* dist,
                                      unsigned char* cur, unsigned char* nxt, int* slot) {
    bool near = false;
    int far_min = INT_MAX;
    unsigned* cur_words = reinterpret_cast<unsigned*>(cur);
    // four flags per load: a phase's scan of mostly clear flags is a quarter of the loads
    for (int i = first; i < flag_words(vertices); i += stride) {
        const unsigned word = __ldcg(cur_words + i);
        if (word == 0) continue;
        cur_words[i] = 0;  // nobody else writes this phase's flags
        for (int b = 0; b < 4; ++b) {
            if (((word >> (8 * b)) & 0xffu) == 0) continue;
            const int v = 4 * i + b;  // < vertices: the padding bytes are never set
            const int du = __ldcg(dist + v);  // finite: only the source and lowered vertices are flagged
            if (du >= T) {
                nxt[v] = 1;
                far_min = min(far_min, du);
                continue;
            }
            // Four edges per trip: their distance gathers, then their atomics, are in flight together
            // (one edge at a time is two dependent L2 round trips per edge).
            const int end = __ldg(row_ptr + v + 1);
            for (int e = __ldg(row_ptr + v); e < end; e += kEdgesPerTrip) {
                int t[kEdgesPerTrip], nd[kEdgesPerTrip], old[kEdgesPerTrip];
                bool lower[kEdgesPerTrip];
#pragma unroll
                for (int j = 0; j < kEdgesPerTrip; ++j) {
                    const bool edge = e + j < end;
                    t[j] = edge ? __ldg(col_idx + e + j) : 0;
                    nd[j] = edge ? du + __ldg(weights + e + j) : INT_MAX;
                }
#pragma unroll
                for (int j = 0; j < kEdgesPerTrip; ++j) lower[j] = e + j < end && nd[j] < __ldcg(dist + t[j]);
#pragma unroll
                for (int j = 0; j < kEdgesPerTrip; ++j) old[j] = lower[j] ? atomicMin(dist + t[j], nd[j]) : nd[j];
#pragma unroll
                for (int j = 0; j < kEdgesPerTrip; ++j) {
                    if (nd[j] < old[j]) {
                        nxt[t[j]] = 1;
                        if (nd[j] < T)
                            near = true;
                        else
                            far_min = min(far_min, nd[j]);
                    }
                }
            }
        }
    }
    // one report per block: same-address atomics from every warp would queue at L2 each phase
    __shared__ int warp_near[kThreads / 32], warp_far[kThreads / 32];
    const bool any_near = __any_sync(0xffffffffu, near);
    far_min = warp_min(far_min);
    if ((threadIdx.x & 31) == 0) {
        warp_near[threadIdx.x >> 5] = any_near;
        warp_far[threadIdx.x >> 5] = far_min;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int a = 0, m = INT_MAX;
        for (int i = 0; i < kThreads / 32; ++i) {
            a |= warp_near[i];
            m = min(m, warp_far[i]);
        }
        if (a) slot[0] = 1;
        if (m != INT_MAX) atomicMin(slot + 1, m);
    }
    // the arrays are written again only after the grid.sync() (or launch) that ends this phase
}

// The threshold after a phase: unchanged while the band still has work, else the band of the least
// distance left; -1 when no vertex is flagged.
__host__ __device__ __forceinline__ int next_threshold(int T, int any_near, int far_min, int delta) {
    if (any_near) return T;
    if (far_min == INT_MAX) return -1;
    const long long t = (long long)(far_min / delta) * delta + delta;
    return t > INT_MAX ? INT_MAX : (int)t;
}

__global__ void __launch_bounds__(kThreads, 6)
    sssp_persistent(int vertices, int edges, int source, const int* __restrict__ row_ptr,
                    const int* __restrict__ col_idx, const int* __restrict__ weights, int* dist, unsigned char* f0,
                    unsigned char* f1, int* ctl) {
    cg::grid_group grid = cg::this_grid();
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int nthreads = gridDim.x * blockDim.x;
    for (int v = tid; v < vertices; v += nthreads) dist[v] = v == source ? 0 : INT_MAX;
    for (int i = tid; i < flag_words(vertices); i += nthreads) {
        reinterpret_cast<unsigned*>(f0)[i] = initial_flags(i, source);
        reinterpret_cast<unsigned*>(f1)[i] = 0;
    }
    if (tid == 0) {
        ctl[0] = 0;
        ctl[1] = INT_MAX;
    }
    if (blockIdx.x == 0) compute_delta(vertices, edges, weights, ctl);
    grid.sync();
    const int delta = __ldcg(ctl + kDeltaSlot);
    unsigned char* cur = f0;
    unsigned char* nxt = f1;
    for (int s = 0, T = delta;; ++s) {
        // phase s reports in slot s % 3; slot (s + 1) % 3, read by nobody now, is reset for phase s + 1
        if (tid == 0) {
            ctl[2 * ((s + 1) % 3)] = 0;
            ctl[2 * ((s + 1) % 3) + 1] = INT_MAX;
        }
        phase(vertices, tid, nthreads, T, row_ptr, col_idx, weights, dist, cur, nxt, ctl + 2 * (s % 3));
        grid.sync();
        const volatile int* slot = ctl + 2 * (s % 3);
        T = next_threshold(T, slot[0], slot[1], delta);
        if (T < 0) break;
        unsigned char* t = cur;
        cur = nxt;
        nxt = t;
    }
    for (int v = tid; v < vertices; v += nthreads)
        if (__ldcg(dist + v) == INT_MAX) dist[v] = -1;
}

// Fallback path: the same phases, one launch each, the threshold kept on the host.
__global__ void sssp_init(int vertices, int edges, int source, const int* __restrict__ weights, int* dist,
                          unsigned char* f0, unsigned char* f1, int* ctl) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) dist[v] = v == source ? 0 : INT_MAX;
    if (v < flag_words(vertices)) {
        reinterpret_cast<unsigned*>(f0)[v] = initial_flags(v, source);
        reinterpret_cast<unsigned*>(f1)[v] = 0;
    }
    if (blockIdx.x == 0) compute_delta(vertices, edges, weights, ctl);
}

__global__ void sssp_phase(int vertices, int T, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                           const int* __restrict__ weights, int* dist, unsigned char* cur, unsigned char* nxt,
                           int* slot) {
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    phase(vertices, first, gridDim.x * blockDim.x, T, row_ptr, col_idx, weights, dist, cur, nxt, slot);
}

__global__ void sssp_finish(int vertices, int* dist) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices && dist[v] == INT_MAX) dist[v] = -1;
}

void sssp_int_weights(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, const int* weights,
                      int* dist) {
    if (vertices <= 0) return;
    static unsigned char* flags = nullptr;
    static int* ctl = nullptr;
    static int capacity = 0;
    const size_t flag_bytes = 4 * static_cast<size_t>(flag_words(vertices));
    if (vertices > capacity) {
        if (flags) cudaFree(flags);
        cudaMalloc(&flags, 2 * flag_bytes);
        capacity = vertices;
    }
    if (!ctl) cudaMalloc(&ctl, 8 * sizeof(int));
    unsigned char* f0 = flags;
    unsigned char* f1 = flags + flag_bytes;  // word-aligned: cudaMalloc aligns flags to 256 bytes

    static int coop_blocks = 0;  // 0: not yet known, -1: cooperative launch unavailable
    if (coop_blocks == 0) {
        int dev = 0, sms = 0, coop = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sssp_persistent, kThreads, 0);
        coop_blocks = (coop && per_sm > 0) ? per_sm * sms : -1;
    }
    if (coop_blocks > 0) {
        int nv = vertices, ne = edges, src = source;
        const int* rp = row_ptr;
        const int* ci = col_idx;
        const int* wt = weights;
        int* d = dist;
        unsigned char* a = f0;
        unsigned char* b = f1;
        int* c = ctl;
        void* args[] = {&nv, &ne, &src, &rp, &ci, &wt, &d, &a, &b, &c};
        if (cudaLaunchCooperativeKernel(reinterpret_cast<void*>(sssp_persistent), dim3(coop_blocks), dim3(kThreads),
                                        args, 0, 0) == cudaSuccess)
            return;
        cudaGetLastError();  // clear the launch error and use the fallback
        coop_blocks = -1;
    }

    const int blocks = (vertices + kThreads - 1) / kThreads;
    sssp_init<<<blocks, kThreads>>>(vertices, edges, source, weights, dist, f0, f1, ctl);
    int delta = 1;
    cudaMemcpy(&delta, ctl + kDeltaSlot, sizeof(int), cudaMemcpyDeviceToHost);
    const int reset[2] = {0, INT_MAX};
    for (int T = delta; T >= 0;) {
        cudaMemcpy(ctl, reset, sizeof(reset), cudaMemcpyHostToDevice);
        sssp_phase<<<(flag_words(vertices) + kThreads - 1) / kThreads, kThreads>>>(vertices, T, row_ptr, col_idx,
                                                                                 weights, dist, f0, f1, ctl);
        int got[2];
        cudaMemcpy(got, ctl, sizeof(got), cudaMemcpyDeviceToHost);
        T = next_threshold(T, got[0], got[1], delta);
        unsigned char* t = f0;
        f0 = f1;
        f1 = t;
    }
    sssp_finish<<<blocks, kThreads>>>(vertices, dist);
}
