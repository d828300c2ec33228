// steps: memory_coalescing, vectorized_access
// One warp per row: the warp reads 128 consecutive elements per step (a 16-byte load per lane when
// the rows are 16-byte aligned, else 32 elements per step), each lane notes whether its elements
// cross, and a ballot gives the lowest crossing lane, so the warp stops at the first chunk holding
// a crossing. Reads are coalesced instead of 32 threads walking 32 rows far apart.
#include <cstdint>

constexpr int kWarps = 8;

__global__ void __launch_bounds__(kWarps * 32)
    first_above_warp(int rows, int cols, const float* __restrict__ values, float threshold, bool vec,
                     int* __restrict__ first) {
    const int lane = threadIdx.x & 31;
    const long long r = static_cast<long long>(blockIdx.x) * kWarps + (threadIdx.x >> 5);
    if (r >= rows) return;
    const float* row = values + r * cols;
    int found = -1;
    if (vec) {
        const float4* row4 = reinterpret_cast<const float4*>(row);
        const int quads = cols / 4;  // vec implies cols % 4 == 0
        for (int base = 0; base < quads && found < 0; base += 32) {
            const int q = base + lane;
            int hit = 4;  // offset of the first crossing among this lane's four, 4 = none
            if (q < quads) {
                const float4 v = row4[q];
                hit = v.x > threshold ? 0 : v.y > threshold ? 1 : v.z > threshold ? 2 : v.w > threshold ? 3 : 4;
            }
            const unsigned int ballot = __ballot_sync(0xffffffffu, hit < 4);
            if (ballot) {
                const int winner = __ffs(ballot) - 1;
                found = 4 * (base + winner) + __shfl_sync(0xffffffffu, hit, winner);
            }
        }
    } else {
        for (int base = 0; base < cols && found < 0; base += 32) {
            const int c = base + lane;
            const unsigned int ballot = __ballot_sync(0xffffffffu, c < cols && row[c] > threshold);
            if (ballot) found = base + __ffs(ballot) - 1;
        }
    }
    if (lane == 0) first[r] = found;
}

void first_above_per_row(int rows, int cols, const float* values, float threshold, int* first) {
    if (rows <= 0) return;
    const bool vec = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(values) % 16 == 0;
    first_above_warp<<<(rows + kWarps - 1) / kWarps, kWarps * 32>>>(rows, cols, values, threshold, vec, first);
}
