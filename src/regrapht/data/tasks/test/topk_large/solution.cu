// steps: parallelize, algorithmic_change, atomic_privatization, grid_stride_loop, atomic_operations, library_primitive, warp_aggregated_atomics, read_only_cache
// Radix select instead of k rounds of argmax. On order-preserving 32-bit score keys, three
// histogram passes (11 + 11 + 10 bits; shared-memory histograms with warp-aggregated increments,
// then one global add per bin) each fix the next digit of the k-th largest key T, counting only the
// keys that match the digits fixed so far; a one-block kernel picks the digit on the device. Then
// a single pass gathers every key > T and every key == T (their number is known from the last
// histogram) as 64-bit (complemented key, position) pairs, CUB radix-sorts this small set, and the
// first k entries are the answer in order, ties by position.
#include <algorithm>

#include <cub/cub.cuh>

constexpr int kBins = 2048;
constexpr int kThreads = 512;

struct SelectState {
    unsigned int prefix;      // digits of T fixed so far
    unsigned int mask;        // which bits of prefix are fixed
    int need;                 // how many of the keys matching prefix still belong to the top k
    int above;                // keys strictly greater than the fixed prefix range
    int equal;                // after the last round: keys equal to T
};

__device__ __forceinline__ unsigned int ordered_key(float v) {
    const unsigned int bits = __float_as_uint(v);
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ __forceinline__ float key_to_float(unsigned int u) {
    return __uint_as_float((u & 0x80000000u) ? (u ^ 0x80000000u) : ~u);
}

__global__ void __launch_bounds__(kThreads)
    digit_histogram(int n, int shift, int bins, const float* __restrict__ scores, const SelectState* __restrict__ state,
                    unsigned int* __restrict__ hist) {
    __shared__ unsigned int local[kBins];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const unsigned int prefix = state->prefix, mask = state->mask;
    const unsigned int lane_bit = 1u << (threadIdx.x & 31);
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        const int i = base + threadIdx.x;  // every lane of a warp runs the same iterations
        unsigned int digit = 0xFFFFFFFFu;
        if (i < n) {
            const unsigned int key = ordered_key(__ldg(scores + i));
            if ((key & mask) == prefix) digit = (key >> shift) & (bins - 1);
        }
        const unsigned int peers = __match_any_sync(0xffffffffu, digit);
        if (digit != 0xFFFFFFFFu && (peers & (lane_bit - 1)) == 0) atomicAdd(&local[digit], __popc(peers));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

// One block: suffix sums of the histogram find the digit that holds the need-th largest key.
__global__ void choose_digit(int shift, int bins, const unsigned int* __restrict__ hist, SelectState* state,
                             bool last) {
    __shared__ unsigned int h[kBins];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) h[b] = hist[b];
    __syncthreads();
    if (threadIdx.x != 0) return;
    int need = state->need;
    int above = state->above;
    int d = bins - 1;
    for (; d > 0; --d) {
        if (static_cast<int>(h[d]) >= need) break;
        need -= h[d];
        above += h[d];
    }
    state->prefix |= static_cast<unsigned int>(d) << shift;
    state->mask |= static_cast<unsigned int>(bins - 1) << shift;
    state->need = need;
    state->above = above;
    if (last) state->equal = h[d];
}

__global__ void gather_candidates(int n, const float* __restrict__ scores, const SelectState* __restrict__ state,
                                  unsigned long long* __restrict__ cand, int* __restrict__ cand_count) {
    const unsigned int t = state->prefix;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned int key = ordered_key(__ldg(scores + i));
        if (key >= t) {
            const int slot = atomicAdd(cand_count, 1);
            // ascending sort of (~key, position) = descending score, then ascending position
            cand[slot] = (static_cast<unsigned long long>(~key) << 32) | static_cast<unsigned int>(i);
        }
    }
}

__global__ void write_top(int k, const unsigned long long* __restrict__ sorted, float* top_values, int* top_index) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const unsigned long long c = sorted[j];
    top_values[j] = key_to_float(~static_cast<unsigned int>(c >> 32));
    top_index[j] = static_cast<int>(c & 0xFFFFFFFFu);
}

void topk_large(int n, int k, const float* scores, float* top_values, int* top_index) {
    if (n <= 0 || k <= 0) return;
    static SelectState* state = nullptr;
    static unsigned int* hist = nullptr;
    static int* cand_count = nullptr;
    static int grid = 0;
    if (!state) {
        cudaMalloc(&state, sizeof(SelectState));
        cudaMalloc(&hist, kBins * sizeof(unsigned int));
        cudaMalloc(&cand_count, sizeof(int));
        int device = 0, sms = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        grid = sms * 4;
    }
    const int blocks = std::min(grid, (n + kThreads - 1) / kThreads);
    const SelectState init = {0u, 0u, k, 0, 0};
    cudaMemcpy(state, &init, sizeof(init), cudaMemcpyHostToDevice);
    const int shifts[3] = {21, 10, 0};
    const int widths[3] = {11, 11, 10};
    for (int round = 0; round < 3; ++round) {
        const int bins = 1 << widths[round];
        cudaMemsetAsync(hist, 0, bins * sizeof(unsigned int), 0);
        digit_histogram<<<blocks, kThreads>>>(n, shifts[round], bins, scores, state, hist);
        choose_digit<<<1, 1024>>>(shifts[round], bins, hist, state, round == 2);
    }
    SelectState found;
    cudaMemcpy(&found, state, sizeof(found), cudaMemcpyDeviceToHost);
    const int total = found.above + found.equal;  // keys >= T; at least k of them

    static unsigned long long *cand = nullptr, *cand_sorted = nullptr;
    static void* sort_temp = nullptr;
    static int cand_cap = 0;
    static size_t sort_cap = 0;
    if (total > cand_cap) {
        if (cand) cudaFree(cand);
        if (cand_sorted) cudaFree(cand_sorted);
        cudaMalloc(&cand, static_cast<size_t>(total) * sizeof(unsigned long long));
        cudaMalloc(&cand_sorted, static_cast<size_t>(total) * sizeof(unsigned long long));
        cand_cap = total;
    }
    cudaMemsetAsync(cand_count, 0, sizeof(int), 0);
    gather_candidates<<<blocks, kThreads>>>(n, scores, state, cand, cand_count);
    size_t sort_bytes = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, cand, cand_sorted, total);
    if (sort_bytes > sort_cap) {
        if (sort_temp) cudaFree(sort_temp);
        cudaMalloc(&sort_temp, sort_bytes);
        sort_cap = sort_bytes;
    }
    cub::DeviceRadixSort::SortKeys(sort_temp, sort_bytes, cand, cand_sorted, total);
    write_top<<<(k + 255) / 256, 256>>>(k, cand_sorted, top_values, top_index);
}
