static unsigned char clamp_byte(int x) { return static_cast<unsigned char>(x < 0 ? 0 : (x > 255 ? 255 : x)); }

void yuv420_to_rgb(int h, int w, const unsigned char* y, const unsigned char* u, const unsigned char* v,
                   unsigned char* rgb) {
    int cw = (w + 1) / 2;
    for (int r = 0; r < h; ++r) {
        for (int c = 0; c < w; ++c) {
            long long p = static_cast<long long>(r) * w + c;
            long long q = static_cast<long long>(r / 2) * cw + c / 2;
            int luma = 298 * (y[p] - 16);
            int d = u[q] - 128;
            int e = v[q] - 128;
            rgb[3 * p + 0] = clamp_byte((luma + 409 * e + 128) >> 8);
            rgb[3 * p + 1] = clamp_byte((luma - 100 * d - 208 * e + 128) >> 8);
            rgb[3 * p + 2] = clamp_byte((luma + 516 * d + 128) >> 8);
        }
    }
}
