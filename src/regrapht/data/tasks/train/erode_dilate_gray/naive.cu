__global__ void morph_kernel(int height, int width, int radius, const unsigned char* img, unsigned char* eroded,
                             unsigned char* dilated) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int y_lo = max(y - radius, 0), y_hi = min(y + radius, height - 1);
    int x_lo = max(x - radius, 0), x_hi = min(x + radius, width - 1);
    unsigned int lo = 255, hi = 0;
    for (int yy = y_lo; yy <= y_hi; ++yy) {
        const unsigned char* row = img + static_cast<long long>(yy) * width;
        for (int xx = x_lo; xx <= x_hi; ++xx) {
            unsigned int v = row[xx];
            lo = min(lo, v);
            hi = max(hi, v);
        }
    }
    long long i = static_cast<long long>(y) * width + x;
    eroded[i] = static_cast<unsigned char>(lo);
    dilated[i] = static_cast<unsigned char>(hi);
}

void erode_dilate_gray(int height, int width, int radius, const unsigned char* img, unsigned char* eroded,
                       unsigned char* dilated) {
    if (height <= 0 || width <= 0) return;
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    morph_kernel<<<grid, block>>>(height, width, radius, img, eroded, dilated);
}
