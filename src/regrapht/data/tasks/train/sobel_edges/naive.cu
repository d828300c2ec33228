__global__ void sobel_kernel(int height, int width, const unsigned char* img, float* magnitude, float* direction) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    int ym = max(y - 1, 0), yp = min(y + 1, height - 1);
    int xm = max(x - 1, 0), xp = min(x + 1, width - 1);
    const unsigned char* up = img + static_cast<long long>(ym) * width;
    const unsigned char* mid = img + static_cast<long long>(y) * width;
    const unsigned char* down = img + static_cast<long long>(yp) * width;
    int gx = (up[xp] + 2 * mid[xp] + down[xp]) - (up[xm] + 2 * mid[xm] + down[xm]);
    int gy = (down[xm] + 2 * down[x] + down[xp]) - (up[xm] + 2 * up[x] + up[xp]);
    long long i = static_cast<long long>(y) * width + x;
    magnitude[i] = sqrtf(static_cast<float>(gx * gx + gy * gy));
    direction[i] = atan2f(static_cast<float>(gy), static_cast<float>(gx));
}

void sobel_edges(int height, int width, const unsigned char* img, float* magnitude, float* direction) {
    if (height <= 0 || width <= 0) return;
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    sobel_kernel<<<grid, block>>>(height, width, img, magnitude, direction);
}
