__global__ void median5_kernel(int height, int width, const unsigned char* img, unsigned char* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    unsigned char window[25];
    int n = 0;
    for (int dy = -2; dy <= 2; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        const unsigned char* row = img + static_cast<long long>(yy) * width;
        for (int dx = -2; dx <= 2; ++dx) window[n++] = row[min(max(x + dx, 0), width - 1)];
    }
    // insertion sort, then take the middle element
    for (int i = 1; i < 25; ++i) {
        unsigned char v = window[i];
        int j = i - 1;
        while (j >= 0 && window[j] > v) {
            window[j + 1] = window[j];
            --j;
        }
        window[j + 1] = v;
    }
    out[static_cast<long long>(y) * width + x] = window[12];
}

void median_filter_5x5(int height, int width, const unsigned char* img, unsigned char* out) {
    if (height <= 0 || width <= 0) return;
    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    median5_kernel<<<grid, block>>>(height, width, img, out);
}
