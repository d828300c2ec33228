// steps: parallelize, work_decomposition, shared_memory_tiling, atomic_privatization, atomic_operations
// Invert the loop nest: threads own points (grid-stride) instead of boxes, so the work is spread over
// the whole GPU. The boxes are staged in shared memory one tile at a time, hits are counted in
// per-block shared counters, and each block merges its counters with one atomicAdd per box.
// The box tests are the whole cost (npoints x nboxes of them), and shared loads, not compares, bound
// a one-point-per-thread loop: a box is kept as a float4 (min x, y, z, max x) and a float2 (max y, z),
// two broadcast loads instead of six, and each thread tests PPT points (registers) against each box
// it loads, so a load serves PPT tests and a hit adds to the shared counter once per box, not once
// per point.

#define BOX_TILE 1024
#define TPB 256
#define PPT 4

__global__ void __launch_bounds__(TPB) points_in_boxes_tiled(int npoints, int nboxes, const float* __restrict__ points,
                                                             const float* __restrict__ boxes, int* __restrict__ counts) {
    __shared__ float4 s_lo_hx[BOX_TILE];  // min x, min y, min z, max x
    __shared__ float2 s_hyz[BOX_TILE];    // max y, max z
    __shared__ int s_count[BOX_TILE];
    const long long threads = (long long)gridDim.x * TPB;
    for (int tile = 0; tile < nboxes; tile += BOX_TILE) {
        const int nb = min(BOX_TILE, nboxes - tile);
        for (int b = threadIdx.x; b < nb; b += TPB) {
            const float* box = boxes + 6LL * (tile + b);
            s_lo_hx[b] = make_float4(box[0], box[1], box[2], box[3]);
            s_hyz[b] = make_float2(box[4], box[5]);
            s_count[b] = 0;
        }
        __syncthreads();
        // Thread t takes points t, t + threads, ..., t + (PPT - 1) threads, then moves on by PPT threads.
        for (long long p0 = (long long)blockIdx.x * TPB + threadIdx.x; p0 < npoints; p0 += PPT * threads) {
            float x[PPT], y[PPT], z[PPT];
#pragma unroll
            for (int j = 0; j < PPT; ++j) {
                const long long p = p0 + j * threads;
                if (p < npoints) {
                    x[j] = points[3 * p];
                    y[j] = points[3 * p + 1];
                    z[j] = points[3 * p + 2];
                } else {
                    // past the end: NaN coordinates fail every comparison, so no branch in the box loop
                    x[j] = y[j] = z[j] = __int_as_float(0x7fc00000);
                }
            }
            for (int b = 0; b < nb; ++b) {
                const float4 lo = s_lo_hx[b];
                const float2 hi = s_hyz[b];
                int hits = 0;
#pragma unroll
                for (int j = 0; j < PPT; ++j)
                    hits += (x[j] >= lo.x) & (x[j] <= lo.w) & (y[j] >= lo.y) & (y[j] <= hi.x) & (z[j] >= lo.z) &
                            (z[j] <= hi.y);
                if (hits) atomicAdd(&s_count[b], hits);
            }
        }
        __syncthreads();
        for (int b = threadIdx.x; b < nb; b += TPB)
            if (s_count[b]) atomicAdd(&counts[tile + b], s_count[b]);
        __syncthreads();
    }
}

void points_in_boxes(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    if (nboxes <= 0) return;
    cudaMemset(counts, 0, sizeof(int) * (size_t)nboxes);
    if (npoints <= 0) return;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const long long want = ((long long)npoints + TPB * PPT - 1) / (TPB * PPT);
    const int blocks = (int)(want < 4LL * sms ? want : 4LL * sms);
    points_in_boxes_tiled<<<blocks, TPB>>>(npoints, nboxes, points, boxes, counts);
}
