__global__ void max_pool_2d_kernel(int planes, int H, int W, const float* x, float* y, int* argmax) {
    int Ho = (H + 1) / 2, Wo = (W + 1) / 2;
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)planes * Ho * Wo;
    if (idx >= total) return;
    int ow = (int)(idx % Wo);
    int oh = (int)((idx / Wo) % Ho);
    long long p = idx / ((long long)Ho * Wo);
    const float* in = x + p * H * W;
    float best = 0.0f;
    int best_at = -1;
    for (int dh = -1; dh <= 1; ++dh) {
        int h = 2 * oh + dh;
        if (h < 0 || h >= H) continue;
        for (int dw = -1; dw <= 1; ++dw) {
            int w = 2 * ow + dw;
            if (w < 0 || w >= W) continue;
            float v = in[h * W + w];
            if (best_at < 0 || v > best) {
                best = v;
                best_at = h * W + w;
            }
        }
    }
    y[idx] = best;
    argmax[idx] = best_at;
}

void max_pool_2d(int planes, int H, int W, const float* x, float* y, int* argmax) {
    long long total = (long long)planes * ((H + 1) / 2) * ((W + 1) / 2);
    if (total <= 0) return;
    max_pool_2d_kernel<<<(unsigned)((total + 255) / 256), 256>>>(planes, H, W, x, y, argmax);
}
