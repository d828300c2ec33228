// Two passes: every thread scans one row, then every thread scans one column.
__global__ void row_scan(int height, int width, const unsigned char* img, unsigned int* sat) {
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= height) return;
    const unsigned char* row = img + static_cast<long long>(y) * width;
    unsigned int* out = sat + static_cast<long long>(y) * width;
    unsigned int row_sum = 0;
    for (int x = 0; x < width; ++x) {
        row_sum += row[x];
        out[x] = row_sum;
    }
}

__global__ void column_scan(int height, int width, unsigned int* sat) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    unsigned int running = 0;
    for (int y = 0; y < height; ++y) {
        long long i = static_cast<long long>(y) * width + x;
        running += sat[i];
        sat[i] = running;
    }
}

void integral_image(int height, int width, const unsigned char* img, unsigned int* sat) {
    if (height <= 0 || width <= 0) return;
    row_scan<<<(height + 127) / 128, 128>>>(height, width, img, sat);
    column_scan<<<(width + 127) / 128, 128>>>(height, width, sat);
}
