__global__ void box_blur_kernel(int height, int width, const float* img, int radius, float inv_area, float* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float sum = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        const float* row = img + static_cast<long long>(yy) * width;
        for (int dx = -radius; dx <= radius; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            sum += row[xx];
        }
    }
    out[static_cast<long long>(y) * width + x] = sum * inv_area;
}

void box_blur_2d(int height, int width, const float* img, int radius, float* out) {
    if (height <= 0 || width <= 0) return;
    int side = 2 * radius + 1;
    float inv_area = 1.0f / static_cast<float>(side * side);
    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    box_blur_kernel<<<grid, block>>>(height, width, img, radius, inv_area, out);
}
