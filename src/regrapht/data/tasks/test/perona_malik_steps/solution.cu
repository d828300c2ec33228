// steps: kernel_fusion, shared_memory_tiling, fast_math_intrinsics
// Temporal blocking: one launch runs up to FUSE steps. A block loads its TX x TY tile with a
// FUSE-pixel halo (a 128 x 32 region) into shared memory once, runs the steps there between two
// shared buffers, each step updating a region one pixel narrower on every side, and writes only the
// tile. The image crosses DRAM once per FUSE steps (read ~1.4x for the halos, written once) where
// naive.cu reads and writes it every step (4x the traffic at the bench size), and no step waits for a
// launch. The halo pixels are recomputed by the neighbouring blocks: 15% more updates than the
// tile's at FUSE = 4, paid in on-chip work, not DRAM bytes.
//
// The tile layout of the step before (a 32 x 16 tile per step, fluxes computed once per edge into
// shared arrays) measured 0.69x naive: two barriers and twelve shared accesses per pixel per step
// cost more than the two exponentials they saved, and every step still crossed DRAM.
//
// Boundary rule as in the reference: a pixel takes a neighbour's flux only if both lie inside the
// image (tested on image coordinates, so region cells outside the image are never read into an
// update). g(d) = exp(-d*d*inv_kappa2) is exp2f(d*d*k) with k = -inv_kappa2*log2(e): the argument is
// <= 0, where exp2f's error (~2 ulp) is far under the tolerance, and the four fluxes are summed in
// the reference's order (up, down, left, right).
#define FUSE 4                 // steps per launch, and the halo width
#define TX 120                 // output tile width
#define TY 24                  // output tile height
#define RX (TX + 2 * FUSE)     // region width: 128, four warp-widths
#define RY (TY + 2 * FUSE)     // region height: 32
#define BX 32
#define BY 8

__device__ __forceinline__ float flux(float d, float k) { return exp2f(d * d * k) * d; }

__global__ void __launch_bounds__(BX * BY)
    diffuse_fused(int h, int w, int nsteps, float lambda, float k, const float* __restrict__ src,
                  float* __restrict__ dst) {
    __shared__ float buf[2][RY][RX];  // 32 KB: the region before and after a step
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * TX - FUSE, r0 = blockIdx.y * TY - FUSE;  // image coords of region (0, 0)
    for (int y = ty; y < RY; y += BY) {
        const int r = r0 + y;
        const bool row_in = r >= 0 && r < h;
        for (int x = tx; x < RX; x += BX) {
            const int c = c0 + x;
            buf[0][y][x] = row_in && c >= 0 && c < w ? src[(long long)r * w + c] : 0.0f;
        }
    }
    __syncthreads();
    for (int s = 1; s <= nsteps; ++s) {
        // after step s, region cells at least s from the region's border hold step s's values
        float(*cur)[RX] = buf[(s - 1) & 1];
        float(*nxt)[RX] = buf[s & 1];
        for (int y = s + ty; y < RY - s; y += BY) {
            const int r = r0 + y;
            for (int x = s + tx; x < RX - s; x += BX) {
                const int c = c0 + x;
                const float centre = cur[y][x];
                float acc = 0.0f;
                if (r >= 0 && r < h && c >= 0 && c < w) {
                    if (r > 0) acc += flux(cur[y - 1][x] - centre, k);
                    if (r + 1 < h) acc += flux(cur[y + 1][x] - centre, k);
                    if (c > 0) acc += flux(cur[y][x - 1] - centre, k);
                    if (c + 1 < w) acc += flux(cur[y][x + 1] - centre, k);
                }
                nxt[y][x] = centre + lambda * acc;
            }
        }
        __syncthreads();
    }
    float(*fin)[RX] = buf[nsteps & 1];
    for (int y = FUSE + ty; y < FUSE + TY; y += BY) {
        const int r = r0 + y;
        if (r >= h) break;
        for (int x = FUSE + tx; x < FUSE + TX; x += BX) {
            const int c = c0 + x;
            if (c < w) dst[(long long)r * w + c] = fin[y][x];
        }
    }
}

void perona_malik_steps(int h, int w, int steps, float lambda, float inv_kappa2, const float* image, float* work,
                        float* out) {
    if (h <= 0 || w <= 0 || steps <= 0) return;
    const float k = -inv_kappa2 * 1.4426950408889634f;
    const dim3 block(BX, BY);
    const dim3 grid((w + TX - 1) / TX, (h + TY - 1) / TY);
    const int launches = (steps + FUSE - 1) / FUSE;
    const float* src = image;
    for (int i = 0; i < launches; ++i) {
        const int n = i + 1 < launches ? FUSE : steps - FUSE * i;
        // alternate so that the last launch lands in out (consecutive launches never share a buffer)
        float* dst = (launches - 1 - i) % 2 == 0 ? out : work;
        diffuse_fused<<<grid, block>>>(h, w, n, lambda, k, src, dst);
        src = dst;
    }
}
