// A direct port: one thread per pixel, four single-byte stores.
__global__ void unpack_kernel(int n, const unsigned short* packed, unsigned char* rgba, float* luma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int p = packed[i];
    const unsigned int r5 = (p >> 11) & 0x1F, g6 = (p >> 5) & 0x3F, b5 = p & 0x1F;
    const unsigned int r = (r5 << 3) | (r5 >> 2);
    const unsigned int g = (g6 << 2) | (g6 >> 4);
    const unsigned int b = (b5 << 3) | (b5 >> 2);
    rgba[4LL * i + 0] = static_cast<unsigned char>(r);
    rgba[4LL * i + 1] = static_cast<unsigned char>(g);
    rgba[4LL * i + 2] = static_cast<unsigned char>(b);
    rgba[4LL * i + 3] = 255;
    luma[i] = 0.2126f * r + 0.7152f * g + 0.0722f * b;
}

void unpack_rgb565(int n, const unsigned short* packed, unsigned char* rgba, float* luma) {
    if (n > 0) unpack_kernel<<<(n + 255) / 256, 256>>>(n, packed, rgba, luma);
}
