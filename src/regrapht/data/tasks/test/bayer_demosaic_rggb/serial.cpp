static int reflect(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 2 - i;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

void bayer_demosaic_rggb(int h, int w, const unsigned char* raw, unsigned char* rgb) {
    for (int r = 0; r < h; ++r) {
        int up = reflect(r - 1, h), down = reflect(r + 1, h);
        for (int c = 0; c < w; ++c) {
            int left = reflect(c - 1, w), right = reflect(c + 1, w);
            auto at = [&](int rr, int cc) { return static_cast<int>(raw[static_cast<long long>(rr) * w + cc]); };
            int centre = at(r, c);
            int cross = (at(up, c) + at(down, c) + at(r, left) + at(r, right) + 2) >> 2;
            int diagonal = (at(up, left) + at(up, right) + at(down, left) + at(down, right) + 2) >> 2;
            int horizontal = (at(r, left) + at(r, right) + 1) >> 1;
            int vertical = (at(up, c) + at(down, c) + 1) >> 1;
            int red, green, blue;
            if (r % 2 == 0 && c % 2 == 0) {
                red = centre, green = cross, blue = diagonal;
            } else if (r % 2 == 1 && c % 2 == 1) {
                red = diagonal, green = cross, blue = centre;
            } else if (r % 2 == 0) {
                red = horizontal, green = centre, blue = vertical;
            } else {
                red = vertical, green = centre, blue = horizontal;
            }
            long long p = 3 * (static_cast<long long>(r) * w + c);
            rgb[p] = static_cast<unsigned char>(red);
            rgb[p + 1] = static_cast<unsigned char>(green);
            rgb[p + 2] = static_cast<unsigned char>(blue);
        }
    }
}
