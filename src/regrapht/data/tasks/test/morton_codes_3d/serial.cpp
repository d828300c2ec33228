// Morton (Z-order) codes: the sort keys of a linear BVH or octree build.
static unsigned int quantize(float c) {
    int q = static_cast<int>(c * 1024.0f);
    return static_cast<unsigned int>(q < 0 ? 0 : (q > 1023 ? 1023 : q));
}

void morton_codes_3d(int n, const float* xs, const float* ys, const float* zs, unsigned int* codes) {
    for (int i = 0; i < n; ++i) {
        const unsigned int x = quantize(xs[i]), y = quantize(ys[i]), z = quantize(zs[i]);
        unsigned int code = 0;
        for (int k = 0; k < 10; ++k) {
            code |= ((x >> k) & 1u) << (3 * k + 2);
            code |= ((y >> k) & 1u) << (3 * k + 1);
            code |= ((z >> k) & 1u) << (3 * k);
        }
        codes[i] = code;
    }
}
