// steps: parallelize, work_decomposition, shared_memory_tiling, atomic_privatization, atomic_operations
// Invert the loop nest: threads own points (grid-stride) instead of boxes, so the work is spread over
// the whole GPU. The boxes are staged in shared memory one tile at a time (broadcast reads), hits are
// counted in per-block shared counters, and each block merges its counters with one atomicAdd per box.

#define BOX_TILE 1024
#define TPB 256

__global__ void __launch_bounds__(TPB) points_in_boxes_tiled(int npoints, int nboxes, const float* __restrict__ points,
                                                             const float* __restrict__ boxes, int* __restrict__ counts) {
    __shared__ float s_lo[3][BOX_TILE];
    __shared__ float s_hi[3][BOX_TILE];
    __shared__ int s_count[BOX_TILE];
    for (int tile = 0; tile < nboxes; tile += BOX_TILE) {
        int nb = min(BOX_TILE, nboxes - tile);
        for (int b = threadIdx.x; b < nb; b += TPB) {
            const float* box = boxes + 6LL * (tile + b);
            s_lo[0][b] = box[0]; s_lo[1][b] = box[1]; s_lo[2][b] = box[2];
            s_hi[0][b] = box[3]; s_hi[1][b] = box[4]; s_hi[2][b] = box[5];
            s_count[b] = 0;
        }
        __syncthreads();
        for (long long p = (long long)blockIdx.x * TPB + threadIdx.x; p < npoints; p += (long long)gridDim.x * TPB) {
            float x = points[3 * p], y = points[3 * p + 1], z = points[3 * p + 2];
            for (int b = 0; b < nb; ++b) {
                bool in = x >= s_lo[0][b] && x <= s_hi[0][b] && y >= s_lo[1][b] && y <= s_hi[1][b] &&
                          z >= s_lo[2][b] && z <= s_hi[2][b];
                if (in) atomicAdd(&s_count[b], 1);
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
    long long want = ((long long)npoints + TPB - 1) / TPB;
    int blocks = (int)(want < 4LL * sms ? want : 4LL * sms);
    points_in_boxes_tiled<<<blocks, TPB>>>(npoints, nboxes, points, boxes, counts);
}
