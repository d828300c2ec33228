void integral_image(int height, int width, const unsigned char* img, unsigned int* sat) {
    for (int y = 0; y < height; ++y) {
        const unsigned char* row = img + static_cast<long long>(y) * width;
        unsigned int* out = sat + static_cast<long long>(y) * width;
        const unsigned int* above = (y > 0) ? out - width : nullptr;
        unsigned int row_sum = 0;
        for (int x = 0; x < width; ++x) {
            row_sum += row[x];
            out[x] = row_sum + (above ? above[x] : 0u);
        }
    }
}
