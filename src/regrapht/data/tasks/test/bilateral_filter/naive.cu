__global__ void bilateral_kernel(int height, int width, int radius, const float* img, float space_coef,
                                 float range_coef, float* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float center = img[static_cast<long long>(y) * width + x];
    float weighted = 0.0f, total = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy) {
        int yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        const float* row = img + static_cast<long long>(yy) * width;
        for (int dx = -radius; dx <= radius; ++dx) {
            int xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            float diff = row[xx] - center;
            float w = expf(space_coef * static_cast<float>(dx * dx + dy * dy)) * expf(range_coef * diff * diff);
            weighted += w * row[xx];
            total += w;
        }
    }
    out[static_cast<long long>(y) * width + x] = weighted / total;
}

void bilateral_filter(int height, int width, int radius, const float* img, float sigma_space, float sigma_range,
                      float* out) {
    if (height <= 0 || width <= 0) return;
    float space_coef = -0.5f / (sigma_space * sigma_space);
    float range_coef = -0.5f / (sigma_range * sigma_range);
    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    bilateral_kernel<<<grid, block>>>(height, width, radius, img, space_coef, range_coef, out);
}
