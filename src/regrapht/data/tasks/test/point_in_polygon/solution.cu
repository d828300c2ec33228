// steps: shared_memory_tiling, thread_coarsening
// The polygon is staged through shared memory in chunks, each edge once as (xi, yi, xj - xi, yj - yi)
// (exact on this task's integer grid, so the test's arithmetic is unchanged), and every thread tests
// four points against each staged edge, so one shared-memory load feeds four tests.
#define PIP_THREADS 256
#define PIP_POINTS 4
#define PIP_CHUNK 1024

__global__ void __launch_bounds__(PIP_THREADS) point_in_polygon_tiled(int npts, int nverts, const float* __restrict__ px,
                                                                     const float* __restrict__ py,
                                                                     const float* __restrict__ vx,
                                                                     const float* __restrict__ vy, int* inside) {
    __shared__ float4 edges[PIP_CHUNK];
    const int base = blockIdx.x * (PIP_THREADS * PIP_POINTS) + threadIdx.x;
    float x[PIP_POINTS], y[PIP_POINTS];
    int in[PIP_POINTS];
#pragma unroll
    for (int k = 0; k < PIP_POINTS; ++k) {
        int p = base + k * PIP_THREADS;  // consecutive threads take consecutive points: coalesced
        x[k] = p < npts ? px[p] : 0.0f;
        y[k] = p < npts ? py[p] : 0.0f;
        in[k] = 0;
    }
    for (int start = 0; start < nverts; start += PIP_CHUNK) {
        const int count = min(PIP_CHUNK, nverts - start);
        __syncthreads();  // the previous chunk is no longer read
        for (int e = threadIdx.x; e < count; e += PIP_THREADS) {
            int i = start + e;
            int j = i == 0 ? nverts - 1 : i - 1;
            float xi = vx[i], yi = vy[i];
            edges[e] = make_float4(xi, yi, vx[j] - xi, vy[j] - yi);
        }
        __syncthreads();
        for (int e = 0; e < count; ++e) {
            const float4 ed = edges[e];  // the same address for the whole warp: a broadcast
#pragma unroll
            for (int k = 0; k < PIP_POINTS; ++k) {
                bool above_i = ed.y > y[k];
                bool above_j = ed.y + ed.w > y[k];
                float cross = ed.z * (y[k] - ed.y) - (x[k] - ed.x) * ed.w;
                bool left = ed.w > 0.0f ? cross > 0.0f : cross < 0.0f;
                in[k] ^= (above_i != above_j) & left;
            }
        }
    }
#pragma unroll
    for (int k = 0; k < PIP_POINTS; ++k) {
        int p = base + k * PIP_THREADS;
        if (p < npts) inside[p] = in[k];
    }
}

void point_in_polygon(int npts, int nverts, const float* px, const float* py, const float* vx, const float* vy,
                      int* inside) {
    if (npts <= 0) return;
    const int per_block = PIP_THREADS * PIP_POINTS;
    point_in_polygon_tiled<<<(npts + per_block - 1) / per_block, PIP_THREADS>>>(npts, nverts, px, py, vx, vy, inside);
}
