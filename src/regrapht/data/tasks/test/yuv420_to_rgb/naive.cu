// One thread per pixel, reading its luma byte and its 2x2 block's chroma bytes, writing three bytes.
__device__ unsigned char clamp_byte(int x) { return (unsigned char)(x < 0 ? 0 : (x > 255 ? 255 : x)); }

__global__ void yuv420_kernel(int h, int w, const unsigned char* y, const unsigned char* u,
                              const unsigned char* v, unsigned char* rgb) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (long long)h * w) return;
    int r = (int)(p / w), c = (int)(p % w);
    int cw = (w + 1) / 2;
    long long q = (long long)(r / 2) * cw + c / 2;
    int luma = 298 * (y[p] - 16);
    int d = u[q] - 128;
    int e = v[q] - 128;
    rgb[3 * p + 0] = clamp_byte((luma + 409 * e + 128) >> 8);
    rgb[3 * p + 1] = clamp_byte((luma - 100 * d - 208 * e + 128) >> 8);
    rgb[3 * p + 2] = clamp_byte((luma + 516 * d + 128) >> 8);
}

void yuv420_to_rgb(int h, int w, const unsigned char* y, const unsigned char* u, const unsigned char* v,
                   unsigned char* rgb) {
    long long pixels = (long long)h * w;
    if (pixels <= 0) return;
    yuv420_kernel<<<(unsigned)((pixels + 255) / 256), 256>>>(h, w, y, u, v, rgb);
}
