// steps: kernel_fusion, shared_memory_tiling, atomic_privatization, atomic_operations, grid_stride_loop, loop_unrolling, launch_config_tuning, read_only_cache
// One kernel an iteration. Its prologue finishes the previous iteration's update (each block divides
// the previous sums into its shared copy of the centroids; block 0 also keeps them for the next
// iteration), so the centroid kernel of every iteration but the last is fused away. A block-sized
// grid-stride loop assigns points against the shared centroids, with the distance loop unrolled
// for dims up to 8 and the point held in registers, and accumulates into per-block shared sums and
// counts; each block then adds its partials to the iteration's global slots with one atomic per
// cluster coordinate. Every iteration has its own zeroed slots, so nothing is cleared in between.
#include <algorithm>

#define KM_THREADS 256

template <int DIMS>
__global__ void __launch_bounds__(KM_THREADS) kmeans_iteration(int n, int k, int dims_rt, const double* __restrict__ points,
                                                              const double* __restrict__ c_prev,
                                                              const double* __restrict__ sums_prev,
                                                              const int* __restrict__ counts_prev, double* c_keep,
                                                              double* sums, int* counts, int* labels) {
    const int dims = DIMS > 0 ? DIMS : dims_rt;
    const int kd = k * dims;
    extern __shared__ double smem[];
    double* cent = smem;
    double* psum = smem + kd;
    int* pcnt = reinterpret_cast<int*>(psum + kd);
    for (int e = threadIdx.x; e < kd; e += blockDim.x) {
        double v = c_prev[e];
        if (sums_prev != nullptr) {
            const int cnt = counts_prev[e / dims];
            if (cnt > 0) v = sums_prev[e] / cnt;
        }
        cent[e] = v;
        psum[e] = 0.0;
        if (blockIdx.x == 0) c_keep[e] = v;
    }
    for (int c = threadIdx.x; c < k; c += blockDim.x) pcnt[c] = 0;
    __syncthreads();
    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x) {
        const double* xp = points + (long long)p * dims;
        double x[DIMS > 0 ? DIMS : 1];
        if (DIMS > 0) {
#pragma unroll
            for (int j = 0; j < (DIMS > 0 ? DIMS : 1); ++j) x[j] = xp[j];
        }
        int best = 0;
        double best_d = 0.0;
        for (int c = 0; c < k; ++c) {
            const double* cc = cent + c * dims;  // the same centroid for the whole warp: broadcasts
            double d = 0.0;
            if (DIMS > 0) {
#pragma unroll
                for (int j = 0; j < (DIMS > 0 ? DIMS : 1); ++j) {
                    const double t = x[j] - cc[j];
                    d += t * t;
                }
            } else {
                for (int j = 0; j < dims; ++j) {
                    const double t = xp[j] - cc[j];
                    d += t * t;
                }
            }
            if (c == 0 || d < best_d) {
                best_d = d;
                best = c;
            }
        }
        if (labels != nullptr) labels[p] = best;
        atomicAdd(&pcnt[best], 1);
        if (DIMS > 0) {
#pragma unroll
            for (int j = 0; j < (DIMS > 0 ? DIMS : 1); ++j) atomicAdd(&psum[best * dims + j], x[j]);
        } else {
            for (int j = 0; j < dims; ++j) atomicAdd(&psum[best * dims + j], xp[j]);
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < kd; e += blockDim.x)
        if (pcnt[e / dims] > 0) atomicAdd(&sums[e], psum[e]);
    for (int c = threadIdx.x; c < k; c += blockDim.x)
        if (pcnt[c] > 0) atomicAdd(&counts[c], pcnt[c]);
}

__global__ void kmeans_finish(int k, int dims, const double* c_prev, const double* sums_prev, const int* counts_prev,
                              double* centroids) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= k * dims) return;
    const int cnt = counts_prev[e / dims];
    centroids[e] = cnt > 0 ? sums_prev[e] / cnt : c_prev[e];
}

template <int DIMS>
static void kmeans_run(int n, int k, int dims, int iters, const double* points, const double* init, int* labels,
                       double* centroids, double* sums, int* counts, double* keep) {
    const int kd = k * dims;
    const size_t smem = 2 * kd * sizeof(double) + k * sizeof(int);
    static int max_blocks = 0;  // one per template instance: enough resident blocks to fill the GPU
    if (max_blocks == 0) {
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kmeans_iteration<DIMS>, KM_THREADS, 2 * 2048 * sizeof(double) + 2048 * sizeof(int));
        max_blocks = std::max(1, sms) * std::max(1, per_sm);
    }
    const int blocks = std::max(1, std::min((n + KM_THREADS - 1) / KM_THREADS, max_blocks));
    for (int it = 0; it < iters; ++it) {
        const double* c_prev = it == 0 ? init : keep + ((it - 1) & 1) * kd;
        const double* sums_prev = it == 0 ? nullptr : sums + (long long)(it - 1) * kd;
        const int* counts_prev = it == 0 ? nullptr : counts + (long long)(it - 1) * k;
        kmeans_iteration<DIMS><<<blocks, KM_THREADS, smem>>>(n, k, dims, points, c_prev, sums_prev, counts_prev,
                                                              keep + (it & 1) * kd, sums + (long long)it * kd,
                                                              counts + (long long)it * k, it == iters - 1 ? labels : nullptr);
    }
    const int last = iters - 1;
    kmeans_finish<<<(kd + 255) / 256, 256>>>(k, dims, keep + (last & 1) * kd, sums + (long long)last * kd,
                                            counts + (long long)last * k, centroids);
}

void kmeans_fp64(int n, int k, int dims, int iters, const double* points, const double* init, int* labels,
                 double* centroids) {
    if (k <= 0 || dims <= 0) return;
    if (iters <= 0) {
        cudaMemcpyAsync(centroids, init, k * dims * sizeof(double), cudaMemcpyDeviceToDevice);
        return;
    }
    static char* work = nullptr;
    static size_t capacity = 0;
    const int kd = k * dims;
    const size_t sums_bytes = (size_t)iters * kd * sizeof(double), keep_bytes = 2 * (size_t)kd * sizeof(double);
    const size_t need = sums_bytes + keep_bytes + (size_t)iters * k * sizeof(int);
    if (need > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, need);
        capacity = need;
    }
    double* sums = reinterpret_cast<double*>(work);
    double* keep = reinterpret_cast<double*>(work + sums_bytes);
    int* counts = reinterpret_cast<int*>(work + sums_bytes + keep_bytes);
    // every iteration has its own slots: clear them all once
    cudaMemsetAsync(sums, 0, sums_bytes);
    cudaMemsetAsync(counts, 0, (size_t)iters * k * sizeof(int));
    switch (dims) {
        case 1: kmeans_run<1>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 2: kmeans_run<2>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 3: kmeans_run<3>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 4: kmeans_run<4>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 5: kmeans_run<5>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 6: kmeans_run<6>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 7: kmeans_run<7>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        case 8: kmeans_run<8>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
        default: kmeans_run<0>(n, k, dims, iters, points, init, labels, centroids, sums, counts, keep); break;
    }
}
