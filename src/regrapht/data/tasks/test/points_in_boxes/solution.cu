// steps: work_decomposition, register_tiling, thread_coarsening, shared_memory_tiling, vectorized_access, loop_unrolling, atomic_operations
// The work is npoints x nboxes box tests, each a few loads and six compares, so the cost is the
// instructions around each compare. A block takes a tile of PTS_TILE points and BOX_GROUP boxes:
// the points are repacked into shared memory as float4 (one broadcast 16-byte load per point for the
// whole warp), and each thread keeps BPT boxes' bounds and counts in registers, so one point load
// serves BPT tests and no box is ever reloaded; the point loop is unrolled by four. Each thread adds
// its BPT counts to the global totals once per block; boxes past nboxes get empty bounds
// (lo = +inf), so they never count.
#include <math.h>

#define TPB 128
#define BPT 4
#define BOX_GROUP (TPB * BPT)
#define PTS_TILE 1024

__global__ void __launch_bounds__(TPB) points_in_boxes_reg(int npoints, int nboxes, const float* __restrict__ points,
                                                           const float* __restrict__ boxes, int* __restrict__ counts) {
    __shared__ float4 s_pts[PTS_TILE];
    const long long p0 = (long long)blockIdx.x * PTS_TILE;
    const int np = (int)min((long long)PTS_TILE, (long long)npoints - p0);
    for (int j = threadIdx.x; j < np; j += TPB) {
        const float* q = points + 3 * (p0 + j);
        s_pts[j] = make_float4(q[0], q[1], q[2], 0.0f);
    }

    // box b of this thread is group * BOX_GROUP + k * TPB + threadIdx.x: the warp's boxes are adjacent
    float lo[BPT][3], hi[BPT][3];
    int inside[BPT];
    const int b0 = blockIdx.y * BOX_GROUP + threadIdx.x;
#pragma unroll
    for (int k = 0; k < BPT; ++k) {
        const int b = b0 + k * TPB;
        inside[k] = 0;
        if (b < nboxes) {
            const float* box = boxes + 6LL * b;
#pragma unroll
            for (int d = 0; d < 3; ++d) {
                lo[k][d] = box[d];
                hi[k][d] = box[3 + d];
            }
        } else {
#pragma unroll
            for (int d = 0; d < 3; ++d) {
                lo[k][d] = INFINITY;
                hi[k][d] = -INFINITY;
            }
        }
    }
    __syncthreads();

#pragma unroll 4
    for (int j = 0; j < np; ++j) {
        const float4 q = s_pts[j];
#pragma unroll
        for (int k = 0; k < BPT; ++k)
            inside[k] += (q.x >= lo[k][0]) & (q.x <= hi[k][0]) & (q.y >= lo[k][1]) & (q.y <= hi[k][1]) &
                         (q.z >= lo[k][2]) & (q.z <= hi[k][2]);
    }

#pragma unroll
    for (int k = 0; k < BPT; ++k) {
        const int b = b0 + k * TPB;
        if (b < nboxes && inside[k]) atomicAdd(&counts[b], inside[k]);
    }
}

void points_in_boxes(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    if (nboxes <= 0) return;
    cudaMemsetAsync(counts, 0, sizeof(int) * (size_t)nboxes);
    if (npoints <= 0) return;
    // bench: 1024 point tiles x 1 box group = 1024 blocks of 128 threads, about 8 per SM
    dim3 grid((unsigned)((npoints + PTS_TILE - 1) / PTS_TILE), (unsigned)((nboxes + BOX_GROUP - 1) / BOX_GROUP));
    points_in_boxes_reg<<<grid, TPB>>>(npoints, nboxes, points, boxes, counts);
}
