// steps: work_decomposition, memory_coalescing, warp_shuffle_reduction
// A warp per polygon: the lanes take consecutive vertices (coalesced loads, and a polygon of
// thousands of vertices no longer holds one thread while the rest of its warp idles), each lane
// gets its successor's coordinates from the next lane by a shuffle, and the three double sums are
// reduced across the warp with shuffles.
#define PAC_WARPS 8

__global__ void __launch_bounds__(PAC_WARPS * 32) polygon_warp(int npoly, const int* __restrict__ poly_ptr,
                                                              const float* __restrict__ vx,
                                                              const float* __restrict__ vy, float* area, float* cx,
                                                              float* cy) {
    const int lane = threadIdx.x & 31;
    const int p = blockIdx.x * PAC_WARPS + (threadIdx.x >> 5);
    if (p >= npoly) return;  // whole warps leave together
    const int s = poly_ptr[p], e = poly_ptr[p + 1];
    double a2 = 0.0, sx = 0.0, sy = 0.0;
    for (int base = s; base < e; base += 32) {
        const int i = base + lane;
        const bool live = i < e;
        const float xi = live ? vx[i] : 0.0f, yi = live ? vy[i] : 0.0f;
        // the successor is the next lane's vertex, except for lane 31 and past the polygon's end
        float xj = __shfl_down_sync(0xffffffffu, xi, 1), yj = __shfl_down_sync(0xffffffffu, yi, 1);
        if (live && (lane == 31 || i + 1 >= e)) {
            const int j = i + 1 < e ? i + 1 : s;
            xj = vx[j];
            yj = vy[j];
        }
        if (live) {
            const double dxi = xi, dyi = yi, dxj = xj, dyj = yj;
            const double c = dxi * dyj - dxj * dyi;
            a2 += c;
            sx += (dxi + dxj) * c;
            sy += (dyi + dyj) * c;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        a2 += __shfl_down_sync(0xffffffffu, a2, o);
        sx += __shfl_down_sync(0xffffffffu, sx, o);
        sy += __shfl_down_sync(0xffffffffu, sy, o);
    }
    if (lane == 0) {
        area[p] = (float)(0.5 * a2);
        cx[p] = (float)(sx / (3.0 * a2));
        cy[p] = (float)(sy / (3.0 * a2));
    }
}

void polygon_area_centroid(int npoly, int nverts, const int* poly_ptr, const float* vx, const float* vy, float* area,
                           float* cx, float* cy) {
    (void)nverts;
    if (npoly <= 0) return;
    polygon_warp<<<(npoly + PAC_WARPS - 1) / PAC_WARPS, PAC_WARPS * 32>>>(npoly, poly_ptr, vx, vy, area, cx, cy);
}
