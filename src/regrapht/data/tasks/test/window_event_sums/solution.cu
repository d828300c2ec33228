// steps: algorithmic_change, library_primitive
// Replace each window's loop over its events by a difference of two entries of a prefix-sum table:
// a widening pass and one in-place CUB scan build prefix[i] = sum of weights[0..i) in double, then every window costs two
// binary searches and two loads, independent of how many events it spans.
#include <cub/cub.cuh>

__global__ void widen(int events, const float* __restrict__ weights, double* __restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < events) out[i] = static_cast<double>(weights[i]);
}

__device__ __forceinline__ int first_not_before(const float* __restrict__ times, int events, float t) {
    int lo = 0, hi = events;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (__ldg(times + mid) < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

__global__ void window_from_prefix(int events, int queries, const float* __restrict__ times,
                                   const double* __restrict__ prefix, const float* __restrict__ win_start,
                                   const float* __restrict__ win_end, int* __restrict__ count,
                                   float* __restrict__ weight_sum) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const int first = first_not_before(times, events, win_start[q]);
    const int last = first_not_before(times, events, win_end[q]);
    if (last > first) {
        count[q] = last - first;
        weight_sum[q] = static_cast<float>(prefix[last] - prefix[first]);
    } else {
        count[q] = 0;
        weight_sum[q] = 0.0f;
    }
}

void window_event_sums(int events, int queries, const float* times, const float* weights, const float* win_start,
                       const float* win_end, int* count, float* weight_sum) {
    if (queries <= 0) return;
    static double* prefix = nullptr;
    static void* temp = nullptr;
    static size_t prefix_cap = 0, temp_cap = 0;
    const size_t need = static_cast<size_t>(events) + 1;
    if (need > prefix_cap) {
        if (prefix) cudaFree(prefix);
        cudaMalloc(&prefix, need * sizeof(double));
        prefix_cap = need;
    }
    cudaMemsetAsync(prefix, 0, sizeof(double), 0);  // prefix[0] = 0
    if (events > 0) {
        widen<<<(events + 255) / 256, 256>>>(events, weights, prefix + 1);
        size_t temp_bytes = 0;
        cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, prefix + 1, prefix + 1, events);
        if (temp_bytes > temp_cap) {
            if (temp) cudaFree(temp);
            cudaMalloc(&temp, temp_bytes);
            temp_cap = temp_bytes;
        }
        cub::DeviceScan::InclusiveSum(temp, temp_bytes, prefix + 1, prefix + 1, events);  // in place
    }
    window_from_prefix<<<(queries + 255) / 256, 256>>>(events, queries, times, prefix, win_start, win_end, count,
                                                       weight_sum);
}
