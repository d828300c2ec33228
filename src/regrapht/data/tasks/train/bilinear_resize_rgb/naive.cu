__device__ double source_coord(int d, double scale, int n_in) {
    double s = (d + 0.5) * scale - 0.5;
    return fmin(fmax(s, 0.0), static_cast<double>(n_in - 1));
}

__global__ void resize_kernel(int in_h, int in_w, int out_h, int out_w, double scale_y, double scale_x,
                              const float* src, float* dst) {
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox >= out_w || oy >= out_h) return;
    double sy = source_coord(oy, scale_y, in_h);
    int y0 = static_cast<int>(sy);
    int y1 = min(y0 + 1, in_h - 1);
    float fy = static_cast<float>(sy - y0);
    double sx = source_coord(ox, scale_x, in_w);
    int x0 = static_cast<int>(sx);
    int x1 = min(x0 + 1, in_w - 1);
    float fx = static_cast<float>(sx - x0);
    const float* p00 = src + (static_cast<long long>(y0) * in_w + x0) * 3;
    const float* p01 = src + (static_cast<long long>(y0) * in_w + x1) * 3;
    const float* p10 = src + (static_cast<long long>(y1) * in_w + x0) * 3;
    const float* p11 = src + (static_cast<long long>(y1) * in_w + x1) * 3;
    float* out = dst + (static_cast<long long>(oy) * out_w + ox) * 3;
    for (int c = 0; c < 3; ++c) {
        float top = p00[c] + fx * (p01[c] - p00[c]);
        float bottom = p10[c] + fx * (p11[c] - p10[c]);
        out[c] = top + fy * (bottom - top);
    }
}

void bilinear_resize_rgb(int in_h, int in_w, int out_h, int out_w, const float* src, float* dst) {
    if (out_h <= 0 || out_w <= 0) return;
    double scale_y = static_cast<double>(in_h) / out_h;
    double scale_x = static_cast<double>(in_w) / out_w;
    dim3 block(32, 8);
    dim3 grid((out_w + 31) / 32, (out_h + 7) / 8);
    resize_kernel<<<grid, block>>>(in_h, in_w, out_h, out_w, scale_y, scale_x, src, dst);
}
