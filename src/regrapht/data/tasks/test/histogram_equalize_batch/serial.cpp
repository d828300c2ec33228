void histogram_equalize_batch(int nimg, int h, int w, const unsigned char* images, unsigned char* out) {
    const long long P = static_cast<long long>(h) * w;
    for (int i = 0; i < nimg; ++i) {
        const unsigned char* img = images + i * P;
        unsigned char* dst = out + i * P;
        long long hist[256] = {0};
        for (long long p = 0; p < P; ++p) hist[img[p]] += 1;
        long long cdf[256], running = 0, cdf_min = 0;
        for (int v = 0; v < 256; ++v) {
            running += hist[v];
            cdf[v] = running;
            if (cdf_min == 0) cdf_min = running;
        }
        unsigned char lut[256];
        const long long den = P - cdf_min;
        for (int v = 0; v < 256; ++v) {
            if (den == 0) {
                lut[v] = static_cast<unsigned char>(v);
            } else {
                long long num = cdf[v] > cdf_min ? (cdf[v] - cdf_min) * 255 : 0;
                lut[v] = static_cast<unsigned char>((num + den / 2) / den);
            }
        }
        for (long long p = 0; p < P; ++p) dst[p] = lut[img[p]];
    }
}
