// steps: algorithmic_change, loop_unrolling, read_only_cache
// No per-thread counter array: a vertex of degree <= 16 (nearly all of a sparse graph's) loads
// its neighbours' labels into registers and finds the mode by counting each label's copies among
// them, fully unrolled, so there is no zeroing and no scan of num_labels counters in local memory.
// Only copies at or after position a are counted: a label's first position counts all of its
// copies and its later positions count fewer, so they never displace it (half the compares).
// Larger degrees count the same way from global memory. Graph and labels are read through the
// read-only cache. Steps ping-pong between labels and work so the last one writes labels.
#include <climits>

constexpr int SMALL = 16;

__global__ void __launch_bounds__(256) vote_registers(int vertices, const int* __restrict__ row_ptr,
                                                      const int* __restrict__ col_idx,
                                                      const int* __restrict__ current, int* __restrict__ next) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    const int first = __ldg(row_ptr + v), last = __ldg(row_ptr + v + 1), degree = last - first;
    if (degree == 0) {
        next[v] = __ldg(current + v);
        return;
    }
    int winner = INT_MAX, votes = 0;
    if (degree <= SMALL) {
        int lab[SMALL];
#pragma unroll
        for (int t = 0; t < SMALL; ++t) lab[t] = t < degree ? __ldg(current + __ldg(col_idx + first + t)) : INT_MIN;
#pragma unroll
        for (int a = 0; a < SMALL; ++a) {
            int copies = 0;
#pragma unroll
            for (int t = a; t < SMALL; ++t) copies += lab[t] == lab[a];
            if (a < degree && (copies > votes || (copies == votes && lab[a] < winner))) {
                winner = lab[a];
                votes = copies;
            }
        }
    } else {
        for (int a = first; a < last; ++a) {
            const int candidate = __ldg(current + __ldg(col_idx + a));
            int copies = 0;
            for (int t = first; t < last; ++t) copies += __ldg(current + __ldg(col_idx + t)) == candidate;
            if (copies > votes || (copies == votes && candidate < winner)) {
                winner = candidate;
                votes = copies;
            }
        }
    }
    next[v] = winner;
}

void label_propagation_steps(int vertices, int edges, int steps, int num_labels, const int* row_ptr,
                             const int* col_idx, const int* labels0, int* labels, int* work) {
    (void)edges;
    (void)num_labels;
    if (vertices <= 0) return;
    const unsigned blocks = (unsigned)((vertices + 255) / 256);
    const int* current = labels0;
    for (int s = 0; s < steps; ++s) {
        int* next = (steps - 1 - s) % 2 == 0 ? labels : work;
        vote_registers<<<blocks, 256>>>(vertices, row_ptr, col_idx, current, next);
        current = next;
    }
}
