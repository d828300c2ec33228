// steps: parallelize, work_decomposition, memory_coalescing, warp_shuffle_reduction
// One block per row walks it in 256-element chunks: consecutive threads read consecutive counts,
// a shuffle scan inside each warp plus a scan of the 8 warp totals gives the chunk's prefix sums,
// and a running carry links the chunks.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void row_scan_block(int rows, int cols, const int* __restrict__ counts, int* __restrict__ cumulative,
                               int* __restrict__ row_total) {
    __shared__ int warp_sums[kWarps];
    const int row = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int* in = counts + static_cast<long long>(row) * cols;
    int* out = cumulative + static_cast<long long>(row) * cols;
    int carry = 0;
    for (int base = 0; base < cols; base += kThreads) {
        const int c = base + threadIdx.x;
        int v = c < cols ? __ldg(in + c) : 0;
#pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
            const int t = __shfl_up_sync(0xffffffffu, v, offset);
            if (lane >= offset) v += t;
        }
        if (lane == 31) warp_sums[warp] = v;
        __syncthreads();
        if (warp == 0) {
            int s = lane < kWarps ? warp_sums[lane] : 0;
#pragma unroll
            for (int offset = 1; offset < kWarps; offset <<= 1) {
                const int t = __shfl_up_sync(0xffffffffu, s, offset);
                if (lane >= offset) s += t;
            }
            if (lane < kWarps) warp_sums[lane] = s;  // inclusive scan of the warp totals
        }
        __syncthreads();
        v += carry + (warp > 0 ? warp_sums[warp - 1] : 0);
        if (c < cols) out[c] = v;
        carry += warp_sums[kWarps - 1];
        __syncthreads();  // warp_sums is rewritten by the next chunk
    }
    if (threadIdx.x == 0) row_total[row] = carry;
}

void row_prefix_sums(int rows, int cols, const int* counts, int* cumulative, int* row_total) {
    if (rows <= 0) return;
    row_scan_block<<<rows, kThreads>>>(rows, cols, counts, cumulative, row_total);
}
