// steps: parallelize, work_decomposition, memory_coalescing, atomic_operations, warp_aggregated_atomics, persistent_kernel, cooperative_groups, launch_config_tuning
// Queue-based BFS: only frontier vertices are expanded, each by a group of 8 lanes that read its
// edge list contiguously. Unvisited targets are claimed with atomicCAS (cheap plain-load filter
// first), and the claimed vertices are appended to the next frontier with one atomicAdd per
// coalesced set of lanes (warp-aggregated push). All levels run inside one persistent cooperative
// kernel, sized by the occupancy API, with grid.sync() between levels, so there is no host round
// trip per level. If a cooperative launch is not possible it falls back to one launch per level.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kGroup = 8;  // lanes per frontier vertex

__device__ __forceinline__ void push(int* queue, int* count, int v) {
    cg::coalesced_group g = cg::coalesced_threads();
    int base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<int>(g.size()));
    base = g.shfl(base, 0);
    queue[base + g.thread_rank()] = v;
}

__device__ __forceinline__ void expand(int level, const int* in_q, int in_n, int* out_q, int* out_n,
                                       const int* __restrict__ row_ptr, const int* __restrict__ col_idx, int* dist,
                                       long long first_group, long long group_stride) {
    const int lane = threadIdx.x % kGroup;
    for (long long g = first_group; g < in_n; g += group_stride) {
        const int u = in_q[g];
        const int end = row_ptr[u + 1];
        for (int e = row_ptr[u] + lane; e < end; e += kGroup) {
            const int v = col_idx[e];
            if (dist[v] == -1 && atomicCAS(&dist[v], -1, level + 1) == -1) push(out_q, out_n, v);
        }
    }
}

__global__ void bfs_persistent(int vertices, int source, const int* row_ptr, const int* col_idx, int* dist, int* q0,
                               int* q1, int* count) {
    cg::grid_group grid = cg::this_grid();
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long v = tid; v < vertices; v += nthreads) dist[v] = v == source ? 0 : -1;
    if (tid == 0) {
        q0[0] = source;
        count[0] = 1;
        count[1] = 0;
        count[2] = 0;
    }
    grid.sync();
    int* in_q = q0;
    int* out_q = q1;
    for (int level = 0;; ++level) {
        // count[level % 3] is this level's frontier size, count[(level + 1) % 3] collects the next
        // one, and count[(level + 2) % 3] (read by nobody now) is cleared for the level after.
        const int in_n = *reinterpret_cast<volatile int*>(&count[level % 3]);
        if (in_n == 0) break;
        if (tid == 0) count[(level + 2) % 3] = 0;
        expand(level, in_q, in_n, out_q, &count[(level + 1) % 3], row_ptr, col_idx, dist, tid / kGroup,
               nthreads / kGroup);
        grid.sync();
        int* t = in_q;
        in_q = out_q;
        out_q = t;
    }
}

// Fallback path: the same expansion, one launch per level.
__global__ void bfs_init(int vertices, int source, int* dist, int* q0, int* count) {
    long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (v < vertices) dist[v] = v == source ? 0 : -1;
    if (v == 0) {
        q0[0] = source;
        count[0] = 1;
    }
}

__global__ void bfs_step(int level, const int* in_q, const int* in_count, int* out_q, int* out_count,
                         const int* row_ptr, const int* col_idx, int* dist) {
    const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * blockDim.x;
    expand(level, in_q, *in_count, out_q, out_count, row_ptr, col_idx, dist, tid / kGroup, nthreads / kGroup);
}

void bfs_distances(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, int* dist) {
    (void)edges;
    if (vertices <= 0) return;
    static int* queues = nullptr;
    static int* count = nullptr;
    static int held = 0;
    if (vertices > held) {
        if (queues) cudaFree(queues);
        cudaMalloc(&queues, 2 * static_cast<size_t>(vertices) * sizeof(int));
        held = vertices;
    }
    if (!count) cudaMalloc(&count, 3 * sizeof(int));
    int* q0 = queues;
    int* q1 = queues + vertices;
    if (source < 0 || source >= vertices) {
        cudaMemset(dist, 0xff, static_cast<size_t>(vertices) * sizeof(int));  // all -1
        return;
    }

    static int coop_blocks = 0;  // 0: not yet known, -1: cooperative launch unavailable
    if (coop_blocks == 0) {
        int dev = 0, sms = 0, coop = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs_persistent, kThreads, 0);
        coop_blocks = (coop && per_sm > 0) ? per_sm * sms : -1;
    }
    if (coop_blocks > 0) {
        int n = vertices, s = source;
        const int* rp = row_ptr;
        const int* ci = col_idx;
        int* d = dist;
        int* c = count;
        void* args[] = {&n, &s, &rp, &ci, &d, &q0, &q1, &c};
        if (cudaLaunchCooperativeKernel(reinterpret_cast<void*>(bfs_persistent), dim3(coop_blocks), dim3(kThreads),
                                        args, 0, 0) == cudaSuccess)
            return;
        cudaGetLastError();  // clear the launch error and use the fallback
        coop_blocks = -1;
    }

    bfs_init<<<(vertices + kThreads - 1) / kThreads, kThreads>>>(vertices, source, dist, q0, count);
    int in_n = 1;
    for (int level = 0; in_n > 0; ++level) {
        int* in_q = (level & 1) ? q1 : q0;
        int* out_q = (level & 1) ? q0 : q1;
        int* in_c = count + (level & 1);
        int* out_c = count + ((level & 1) ^ 1);
        cudaMemset(out_c, 0, sizeof(int));
        long long groups = in_n;
        long long blocks = (groups * kGroup + kThreads - 1) / kThreads;
        bfs_step<<<static_cast<unsigned int>(blocks), kThreads>>>(level, in_q, in_c, out_q, out_c, row_ptr, col_idx,
                                                                  dist);
        cudaMemcpy(&in_n, out_c, sizeof(int), cudaMemcpyDeviceToHost);
    }
}
