void max_pool_2d(int planes, int H, int W, const float* x, float* y, int* argmax) {
    const int Ho = (H + 1) / 2, Wo = (W + 1) / 2;
    for (int p = 0; p < planes; ++p) {
        const float* in = x + static_cast<long long>(p) * H * W;
        float* out = y + static_cast<long long>(p) * Ho * Wo;
        int* where = argmax + static_cast<long long>(p) * Ho * Wo;
        for (int oh = 0; oh < Ho; ++oh) {
            for (int ow = 0; ow < Wo; ++ow) {
                float best = 0.0f;
                int best_at = -1;
                for (int dh = -1; dh <= 1; ++dh) {
                    const int h = 2 * oh + dh;
                    if (h < 0 || h >= H) continue;
                    for (int dw = -1; dw <= 1; ++dw) {
                        const int w = 2 * ow + dw;
                        if (w < 0 || w >= W) continue;
                        const float v = in[h * W + w];
                        if (best_at < 0 || v > best) {
                            best = v;
                            best_at = h * W + w;
                        }
                    }
                }
                out[oh * Wo + ow] = best;
                where[oh * Wo + ow] = best_at;
            }
        }
    }
}
