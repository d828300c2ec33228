// A direct port: one thread per pixel, reading its three interleaved bytes.
__global__ void rgb_to_ycbcr_kernel(int pixels, const unsigned char* rgb, float* y, float* cb, float* cr) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    const float r = rgb[3LL * p + 0];
    const float g = rgb[3LL * p + 1];
    const float b = rgb[3LL * p + 2];
    y[p] = 0.299f * r + 0.587f * g + 0.114f * b;
    cb[p] = 128.0f - 0.168736f * r - 0.331264f * g + 0.5f * b;
    cr[p] = 128.0f + 0.5f * r - 0.418688f * g - 0.081312f * b;
}

void rgb_to_ycbcr(int pixels, const unsigned char* rgb, float* y, float* cb, float* cr) {
    if (pixels > 0) rgb_to_ycbcr_kernel<<<(pixels + 255) / 256, 256>>>(pixels, rgb, y, cb, cr);
}
