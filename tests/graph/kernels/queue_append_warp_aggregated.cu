// regrapht-expect: parallelize, atomic_operations, warp_aggregated_atomics
// Stream compaction into a queue with warp-aggregated atomics, in the form that reserves slots:
// the leader of the lanes that keep an element adds their count to the queue's tail with one
// atomic and keeps the old tail it returns as the warp's base offset for the other lanes. The
// atomic's old value is used here, unlike a plain counter's.
__global__ void compact_positive(int n, const float* in, float* out, int* tail) {
    __shared__ int warp_base[8];  // blocks of 256 threads: 8 warps
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool keep = i < n && in[i] > 0.0f;
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    const int lane = threadIdx.x & 31;
    if (mask != 0u && lane == __ffs(mask) - 1) warp_base[threadIdx.x >> 5] = atomicAdd(tail, __popc(mask));
    __syncwarp();
    if (keep) out[warp_base[threadIdx.x >> 5] + __popc(mask & ((1u << lane) - 1u))] = in[i];
}

void compact(int n, const float* in, float* out, int* tail) {
    cudaMemset(tail, 0, sizeof(int));
    if (n <= 0) return;
    compact_positive<<<(n + 255) / 256, 256>>>(n, in, out, tail);
}
