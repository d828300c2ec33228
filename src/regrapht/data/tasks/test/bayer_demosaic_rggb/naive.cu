// One thread per pixel (a 32x8 block per tile), reading its 3x3 neighbourhood byte by byte.
__device__ int reflect(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 2 - i;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

__global__ void demosaic_kernel(int h, int w, const unsigned char* raw, unsigned char* rgb) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= h || c >= w) return;
    int up = reflect(r - 1, h), down = reflect(r + 1, h);
    int left = reflect(c - 1, w), right = reflect(c + 1, w);
    const unsigned char* row_up = raw + (long long)up * w;
    const unsigned char* row = raw + (long long)r * w;
    const unsigned char* row_down = raw + (long long)down * w;
    int centre = row[c];
    int cross = (row_up[c] + row_down[c] + row[left] + row[right] + 2) >> 2;
    int diagonal = (row_up[left] + row_up[right] + row_down[left] + row_down[right] + 2) >> 2;
    int horizontal = (row[left] + row[right] + 1) >> 1;
    int vertical = (row_up[c] + row_down[c] + 1) >> 1;
    int red, green, blue;
    if (r % 2 == 0 && c % 2 == 0) {
        red = centre, green = cross, blue = diagonal;
    } else if (r % 2 == 1 && c % 2 == 1) {
        red = diagonal, green = cross, blue = centre;
    } else if (r % 2 == 0) {
        red = horizontal, green = centre, blue = vertical;
    } else {
        red = vertical, green = centre, blue = horizontal;
    }
    long long p = 3 * ((long long)r * w + c);
    rgb[p] = (unsigned char)red;
    rgb[p + 1] = (unsigned char)green;
    rgb[p + 2] = (unsigned char)blue;
}

void bayer_demosaic_rggb(int h, int w, const unsigned char* raw, unsigned char* rgb) {
    if (h <= 0 || w <= 0) return;
    dim3 block(32, 8);
    dim3 grid((w + 31) / 32, (h + 7) / 8);
    demosaic_kernel<<<grid, block>>>(h, w, raw, rgb);
}
