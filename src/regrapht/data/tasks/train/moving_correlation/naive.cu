__global__ void moving_corr_kernel(int count, int window, const float* x, const float* y, float* cov, float* corr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    double mean_x = 0.0, mean_y = 0.0;
    for (int k = 0; k < window; ++k) {
        mean_x += x[i + k];
        mean_y += y[i + k];
    }
    mean_x /= window;
    mean_y /= window;
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (int k = 0; k < window; ++k) {
        double dx = x[i + k] - mean_x;
        double dy = y[i + k] - mean_y;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    cov[i] = static_cast<float>(sxy / window);
    double denom = sqrt(sxx * syy);
    corr[i] = static_cast<float>(denom > 0.0 ? sxy / denom : 0.0);
}

void moving_correlation(int n, int window, const float* x, const float* y, float* cov, float* corr) {
    int count = n - window + 1;
    if (count <= 0) return;
    moving_corr_kernel<<<(count + 255) / 256, 256>>>(count, window, x, y, cov, corr);
}
