// One thread per point; every thread walks the polygon's edges from global memory (the same
// vertex for the whole warp at a time, so each load is a broadcast).
__global__ void point_in_polygon_kernel(int npts, int nverts, const float* px, const float* py, const float* vx,
                                        const float* vy, int* inside) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npts) return;
    float x = px[p], y = py[p];
    int in = 0;
    for (int i = 0, j = nverts - 1; i < nverts; j = i++) {
        float xi = vx[i], yi = vy[i], xj = vx[j], yj = vy[j];
        if ((yi > y) != (yj > y)) {
            float cross = (xj - xi) * (y - yi) - (x - xi) * (yj - yi);
            if (yj > yi ? cross > 0.0f : cross < 0.0f) in ^= 1;
        }
    }
    inside[p] = in;
}

void point_in_polygon(int npts, int nverts, const float* px, const float* py, const float* vx, const float* vy,
                      int* inside) {
    if (npts <= 0) return;
    point_in_polygon_kernel<<<(npts + 255) / 256, 256>>>(npts, nverts, px, py, vx, vy, inside);
}
