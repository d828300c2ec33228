// Decode a 16-bit RGB565 framebuffer (embedded displays, camera previews) to RGBA8 plus luminance.
void unpack_rgb565(int n, const unsigned short* packed, unsigned char* rgba, float* luma) {
    for (int i = 0; i < n; ++i) {
        const unsigned int p = packed[i];
        const unsigned int r5 = (p >> 11) & 0x1F, g6 = (p >> 5) & 0x3F, b5 = p & 0x1F;
        const unsigned int r = (r5 << 3) | (r5 >> 2);
        const unsigned int g = (g6 << 2) | (g6 >> 4);
        const unsigned int b = (b5 << 3) | (b5 >> 2);
        rgba[4 * i + 0] = static_cast<unsigned char>(r);
        rgba[4 * i + 1] = static_cast<unsigned char>(g);
        rgba[4 * i + 2] = static_cast<unsigned char>(b);
        rgba[4 * i + 3] = 255;
        luma[i] = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    }
}
