// steps: vectorized_access, thread_coarsening
// Each thread demosaics four pixels of a row (two RGGB column pairs): three aligned 32-bit loads
// bring the 4-pixel strips of the rows above, at and below it, six byte loads their left and right
// neighbours, and three 32-bit stores write the 12 output bytes. The row's parity is uniform per
// thread, so the colour-site choice is two fixed patterns rather than a per-pixel branch. Quads
// touching the left or right edge (where neighbours reflect) and widths that are not a multiple of
// four (where the loads would be unaligned) take the per-pixel path.
__device__ __forceinline__ int reflect(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 2 - i;
    return min(max(i, 0), n - 1);
}

__device__ __forceinline__ unsigned int rgb_of(int r, int c, int centre, int n, int s, int west, int east, int nw,
                                               int ne, int sw, int se) {
    int cross = (n + s + west + east + 2) >> 2;
    int diagonal = (nw + ne + sw + se + 2) >> 2;
    int horizontal = (west + east + 1) >> 1;
    int vertical = (n + s + 1) >> 1;
    int red, green, blue;
    if ((r & 1) == 0) {
        if ((c & 1) == 0) red = centre, green = cross, blue = diagonal;
        else red = horizontal, green = centre, blue = vertical;
    } else {
        if ((c & 1) == 0) red = vertical, green = centre, blue = horizontal;
        else red = diagonal, green = cross, blue = centre;
    }
    return (unsigned int)red | ((unsigned int)green << 8) | ((unsigned int)blue << 16);
}

__device__ __forceinline__ unsigned int pixel_general(int h, int w, const unsigned char* raw, int r, int c) {
    int up = reflect(r - 1, h), down = reflect(r + 1, h);
    int left = reflect(c - 1, w), right = reflect(c + 1, w);
    const unsigned char* a = raw + (long long)up * w;
    const unsigned char* m = raw + (long long)r * w;
    const unsigned char* b = raw + (long long)down * w;
    return rgb_of(r, c, m[c], a[c], b[c], m[left], m[right], a[left], a[right], b[left], b[right]);
}

__device__ __forceinline__ void store_pixel(unsigned char* rgb, long long p, unsigned int v) {
    rgb[3 * p] = (unsigned char)v;
    rgb[3 * p + 1] = (unsigned char)(v >> 8);
    rgb[3 * p + 2] = (unsigned char)(v >> 16);
}

__global__ void demosaic_quads(int h, int w, const unsigned char* __restrict__ raw, unsigned char* __restrict__ rgb) {
    int c0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= h || c0 >= w) return;
    long long p0 = (long long)r * w + c0;
    if (c0 == 0 || c0 + 4 >= w) {
        for (int c = c0; c < c0 + 4 && c < w; ++c) store_pixel(rgb, p0 + (c - c0), pixel_general(h, w, raw, r, c));
        return;
    }
    int up = reflect(r - 1, h), down = reflect(r + 1, h);
    const unsigned char* a = raw + (long long)up * w + c0;
    const unsigned char* m = raw + (long long)r * w + c0;
    const unsigned char* b = raw + (long long)down * w + c0;
    uchar4 qa = *reinterpret_cast<const uchar4*>(a);
    uchar4 qm = *reinterpret_cast<const uchar4*>(m);
    uchar4 qb = *reinterpret_cast<const uchar4*>(b);
    // columns c0-1 .. c0+4 of the three rows
    int A[6] = {a[-1], qa.x, qa.y, qa.z, qa.w, a[4]};
    int M[6] = {m[-1], qm.x, qm.y, qm.z, qm.w, m[4]};
    int B[6] = {b[-1], qb.x, qb.y, qb.z, qb.w, b[4]};
    unsigned int px[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        px[k] = rgb_of(r, c0 + k, M[k + 1], A[k + 1], B[k + 1], M[k], M[k + 2], A[k], A[k + 2], B[k], B[k + 2]);
    unsigned int* out = reinterpret_cast<unsigned int*>(rgb + 3 * p0);
    out[0] = px[0] | (px[1] << 24);
    out[1] = (px[1] >> 8) | (px[2] << 16);
    out[2] = (px[2] >> 16) | (px[3] << 8);
}

__global__ void demosaic_pixels(int h, int w, const unsigned char* __restrict__ raw, unsigned char* __restrict__ rgb) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= h || c >= w) return;
    store_pixel(rgb, (long long)r * w + c, pixel_general(h, w, raw, r, c));
}

void bayer_demosaic_rggb(int h, int w, const unsigned char* raw, unsigned char* rgb) {
    if (h <= 0 || w <= 0) return;
    if (w % 4 == 0) {
        dim3 block(64, 4);
        dim3 grid((w / 4 + 63) / 64, (h + 3) / 4);
        demosaic_quads<<<grid, block>>>(h, w, raw, rgb);
    } else {
        dim3 block(32, 8);
        dim3 grid((w + 31) / 32, (h + 7) / 8);
        demosaic_pixels<<<grid, block>>>(h, w, raw, rgb);
    }
}
