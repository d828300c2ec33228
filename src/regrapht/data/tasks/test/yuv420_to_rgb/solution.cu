// steps: vectorized_access, thread_coarsening
// Each thread converts four horizontally adjacent pixels of one row: one 32-bit load of luma, one 16-bit
// load each of U and V (two pixels share a chroma sample), and three aligned 32-bit stores of the 12
// RGB bytes. The 2D grid (x along the row) removes the per-pixel division. Rows whose width is not a
// multiple of four (the alignment breaks) take a one-pixel-per-thread path.
__device__ __forceinline__ unsigned int clamp_byte(int x) { return (unsigned int)min(max(x, 0), 255); }

__device__ __forceinline__ void convert(int yy, int d, int e, unsigned int& r, unsigned int& g,
                                        unsigned int& b) {
    int luma = 298 * (yy - 16) + 128;
    r = clamp_byte((luma + 409 * e) >> 8);
    g = clamp_byte((luma - 100 * d - 208 * e) >> 8);
    b = clamp_byte((luma + 516 * d) >> 8);
}

__global__ void yuv420_quad(int h, int w, const unsigned char* __restrict__ y, const unsigned char* __restrict__ u,
                            const unsigned char* __restrict__ v, unsigned char* __restrict__ rgb) {
    int quad = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    int c0 = quad * 4;
    if (c0 >= w) return;
    int cw = w / 2;
    long long p = (long long)r * w + c0;
    long long q = (long long)(r / 2) * cw + c0 / 2;
    uchar4 l = *reinterpret_cast<const uchar4*>(y + p);
    uchar2 uu = *reinterpret_cast<const uchar2*>(u + q);
    uchar2 vv = *reinterpret_cast<const uchar2*>(v + q);
    unsigned int r0, g0, b0, r1, g1, b1, r2, g2, b2, r3, g3, b3;
    int d0 = uu.x - 128, e0 = vv.x - 128, d1 = uu.y - 128, e1 = vv.y - 128;
    convert(l.x, d0, e0, r0, g0, b0);
    convert(l.y, d0, e0, r1, g1, b1);
    convert(l.z, d1, e1, r2, g2, b2);
    convert(l.w, d1, e1, r3, g3, b3);
    unsigned int* out = reinterpret_cast<unsigned int*>(rgb + 3 * p);
    out[0] = r0 | (g0 << 8) | (b0 << 16) | (r1 << 24);
    out[1] = g1 | (b1 << 8) | (r2 << 16) | (g2 << 24);
    out[2] = b2 | (r3 << 8) | (g3 << 16) | (b3 << 24);
}

__global__ void yuv420_pixel(int h, int w, const unsigned char* __restrict__ y, const unsigned char* __restrict__ u,
                             const unsigned char* __restrict__ v, unsigned char* __restrict__ rgb) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= w) return;
    int cw = (w + 1) / 2;
    long long p = (long long)r * w + c;
    long long q = (long long)(r / 2) * cw + c / 2;
    unsigned int rr, gg, bb;
    convert(y[p], u[q] - 128, v[q] - 128, rr, gg, bb);
    rgb[3 * p + 0] = (unsigned char)rr;
    rgb[3 * p + 1] = (unsigned char)gg;
    rgb[3 * p + 2] = (unsigned char)bb;
}

void yuv420_to_rgb(int h, int w, const unsigned char* y, const unsigned char* u, const unsigned char* v,
                   unsigned char* rgb) {
    if (h <= 0 || w <= 0) return;
    // gridDim.y stops at 65535 rows: launch in chunks of an even row count, so a chunk starts a chroma row
    for (int r0 = 0; r0 < h; r0 += 65534) {
        int rows = min(h - r0, 65534);
        long long off = (long long)r0 * w;
        long long coff = (long long)(r0 / 2) * ((w + 1) / 2);
        if (w % 4 == 0) {
            dim3 grid((w / 4 + 127) / 128, rows);
            yuv420_quad<<<grid, 128>>>(rows, w, y + off, u + coff, v + coff, rgb + 3 * off);
        } else {
            dim3 grid((w + 127) / 128, rows);
            yuv420_pixel<<<grid, 128>>>(rows, w, y + off, u + coff, v + coff, rgb + 3 * off);
        }
    }
}
