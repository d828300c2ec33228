// steps: work_decomposition, memory_coalescing, warp_shuffle_reduction
// Work is cut by vertices, not by polygons: the sizes follow a power law, and at the bench size the
// largest polygon has hundreds of thousands of vertices, so a warp per polygon left one warp walking
// it alone long after the rest of the GPU had finished (14.7 ms on an H100, 0.7% of the floor).
// Warp c owns the vertex range [c CH, (c + 1) CH) and the edge leaving each of its vertices (to the
// next vertex, or back to the polygon's first). It finds the polygon of its first vertex by a binary
// search over poly_ptr, then takes the polygons overlapping its range in turn: the lanes load
// consecutive vertices (coalesced), each gets its successor from the next lane by a shuffle, and the
// three double sums are reduced across the warp with shuffles. A polygon inside one range is
// finished there; the few that cross a range boundary add their partial sums to a double
// accumulator with atomics, and a second kernel finishes them and clears their accumulator for the
// next call.
#define PAC_WARPS 8
#define CH 1024  // vertices per warp: ~32K warps at the bench size

__device__ __forceinline__ void finish(double a2, double sx, double sy, float* area, float* cx, float* cy, int p) {
    area[p] = (float)(0.5 * a2);
    cx[p] = (float)(sx / (3.0 * a2));
    cy[p] = (float)(sy / (3.0 * a2));
}

__global__ void __launch_bounds__(PAC_WARPS * 32) polygon_ranges(int npoly, int nverts, const int* __restrict__ poly_ptr,
                                                                const float* __restrict__ vx,
                                                                const float* __restrict__ vy, double* __restrict__ acc,
                                                                float* area, float* cx, float* cy) {
    const int lane = threadIdx.x & 31;
    const long long c = (long long)blockIdx.x * PAC_WARPS + (threadIdx.x >> 5);
    const long long cs_ll = c * CH;
    if (cs_ll >= nverts) return;  // whole warps leave together
    const int cs = (int)cs_ll;
    const int ce = (int)(cs_ll + CH < nverts ? cs_ll + CH : nverts);
    // the polygon holding vertex cs: the last p with poly_ptr[p] <= cs
    int lo = 0, hi = npoly - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (__ldg(poly_ptr + mid) <= cs) lo = mid;
        else hi = mid - 1;
    }
    for (int p = lo; p < npoly; ++p) {
        const int s = __ldg(poly_ptr + p), e = __ldg(poly_ptr + p + 1);
        if (s >= ce) break;
        const int first = s > cs ? s : cs, last = e < ce ? e : ce;  // this warp's vertices of p
        double a2 = 0.0, sx = 0.0, sy = 0.0;
        for (int base = first; base < last; base += 32) {
            const int i = base + lane;
            const bool live = i < last;
            const float xi = live ? vx[i] : 0.0f, yi = live ? vy[i] : 0.0f;
            // the successor is the next lane's vertex, except for lane 31 and at the end of the range
            float xj = __shfl_down_sync(0xffffffffu, xi, 1), yj = __shfl_down_sync(0xffffffffu, yi, 1);
            if (live && (lane == 31 || i + 1 >= last)) {
                const int j = i + 1 < e ? i + 1 : s;
                xj = vx[j];
                yj = vy[j];
            }
            if (live) {
                const double dxi = xi, dyi = yi, dxj = xj, dyj = yj;
                const double cr = dxi * dyj - dxj * dyi;
                a2 += cr;
                sx += (dxi + dxj) * cr;
                sy += (dyi + dyj) * cr;
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            a2 += __shfl_down_sync(0xffffffffu, a2, o);
            sx += __shfl_down_sync(0xffffffffu, sx, o);
            sy += __shfl_down_sync(0xffffffffu, sy, o);
        }
        if (lane == 0) {
            if (s >= cs && e <= ce) {
                finish(a2, sx, sy, area, cx, cy, p);
            } else {
                atomicAdd(acc + 3LL * p, a2);
                atomicAdd(acc + 3LL * p + 1, sx);
                atomicAdd(acc + 3LL * p + 2, sy);
            }
        }
    }
}

// Polygons that cross a range boundary: their sums are complete once polygon_ranges has run.
__global__ void finish_crossing(int npoly, const int* __restrict__ poly_ptr, double* __restrict__ acc, float* area,
                                float* cx, float* cy) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoly) return;
    const int s = poly_ptr[p], e = poly_ptr[p + 1];
    if (s / CH == (e - 1) / CH) return;
    double* a = acc + 3LL * p;
    finish(a[0], a[1], a[2], area, cx, cy, p);
    a[0] = a[1] = a[2] = 0.0;
}

void polygon_area_centroid(int npoly, int nverts, const int* poly_ptr, const float* vx, const float* vy, float* area,
                           float* cx, float* cy) {
    if (npoly <= 0 || nverts <= 0) return;
    static double* acc = nullptr;  // all zero between calls: finish_crossing clears what it used
    static int capacity = 0;
    if (npoly > capacity) {
        if (acc) cudaFree(acc);
        cudaMalloc(&acc, 3 * (size_t)npoly * sizeof(double));
        cudaMemset(acc, 0, 3 * (size_t)npoly * sizeof(double));
        capacity = npoly;
    }
    const long long ranges = ((long long)nverts + CH - 1) / CH;
    polygon_ranges<<<(unsigned)((ranges + PAC_WARPS - 1) / PAC_WARPS), PAC_WARPS * 32>>>(npoly, nverts, poly_ptr, vx, vy,
                                                                                       acc, area, cx, cy);
    finish_crossing<<<(npoly + 255) / 256, 256>>>(npoly, poly_ptr, acc, area, cx, cy);
}
