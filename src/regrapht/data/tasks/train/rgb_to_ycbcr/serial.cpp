// Full-range BT.601 (JPEG/JFIF) conversion of an interleaved 8-bit RGB image to float planes.
void rgb_to_ycbcr(int pixels, const unsigned char* rgb, float* y, float* cb, float* cr) {
    for (int p = 0; p < pixels; ++p) {
        const float r = rgb[3 * p + 0];
        const float g = rgb[3 * p + 1];
        const float b = rgb[3 * p + 2];
        y[p] = 0.299f * r + 0.587f * g + 0.114f * b;
        cb[p] = 128.0f - 0.168736f * r - 0.331264f * g + 0.5f * b;
        cr[p] = 128.0f + 0.5f * r - 0.418688f * g - 0.081312f * b;
    }
}
