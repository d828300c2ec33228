// A direct port: one thread per column runs Welford's update in double down the whole column.
__global__ void column_stats_kernel(int rows, int cols, const float* data, float* mean, float* stddev,
                                    float* col_min, float* col_max) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double mu = 0.0, m2 = 0.0;
    float lo = rows > 0 ? data[c] : 0.0f, hi = lo;
    for (int r = 0; r < rows; ++r) {
        const float v = data[static_cast<long long>(r) * cols + c];
        const double x = v;
        const double delta = x - mu;
        mu += delta / (r + 1);
        m2 += delta * (x - mu);
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    mean[c] = static_cast<float>(mu);
    stddev[c] = rows > 1 ? static_cast<float>(sqrt(m2 / (rows - 1))) : 0.0f;
    col_min[c] = lo;
    col_max[c] = hi;
}

void column_stats(int rows, int cols, const float* data, float* mean, float* stddev, float* col_min, float* col_max) {
    if (cols > 0) column_stats_kernel<<<(cols + 63) / 64, 64>>>(rows, cols, data, mean, stddev, col_min, col_max);
}
