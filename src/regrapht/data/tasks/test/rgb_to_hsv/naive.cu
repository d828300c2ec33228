__global__ void rgb_to_hsv_kernel(int n, const unsigned char* rgb, float* hue, float* sat, float* val) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* px = rgb + 3LL * i;
    int r = px[0], g = px[1], b = px[2];
    int hi = max(r, max(g, b));
    int lo = min(r, min(g, b));
    int delta = hi - lo;
    float h = 0.0f;
    if (delta > 0) {
        float d = static_cast<float>(delta);
        if (hi == r) {
            h = 60.0f * (static_cast<float>(g - b) / d);
            if (h < 0.0f) h += 360.0f;
        } else if (hi == g) {
            h = 60.0f * (static_cast<float>(b - r) / d + 2.0f);
        } else {
            h = 60.0f * (static_cast<float>(r - g) / d + 4.0f);
        }
    }
    hue[i] = h;
    sat[i] = hi > 0 ? static_cast<float>(delta) / static_cast<float>(hi) : 0.0f;
    val[i] = static_cast<float>(hi) / 255.0f;
}

void rgb_to_hsv(int n, const unsigned char* rgb, float* hue, float* sat, float* val) {
    if (n <= 0) return;
    rgb_to_hsv_kernel<<<(n + 255) / 256, 256>>>(n, rgb, hue, sat, val);
}
