void histogram_u8(int n, const unsigned char* pixels, unsigned int* bins) {
    for (int b = 0; b < 256; ++b) bins[b] = 0;
    for (int i = 0; i < n; ++i) bins[pixels[i]] += 1;
}
