// A direct port: one thread scans one whole row.
__global__ void row_extrema_kernel(int rows, int cols, const float* data, float* row_min, float* row_max,
                                   int* arg_min, int* arg_max) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = data + static_cast<long long>(r) * cols;
    float lo = row[0], hi = row[0];
    int lo_at = 0, hi_at = 0;
    for (int c = 1; c < cols; ++c) {
        const float v = row[c];
        if (v < lo) {
            lo = v;
            lo_at = c;
        }
        if (v > hi) {
            hi = v;
            hi_at = c;
        }
    }
    row_min[r] = lo;
    row_max[r] = hi;
    arg_min[r] = lo_at;
    arg_max[r] = hi_at;
}

void row_extrema(int rows, int cols, const float* data, float* row_min, float* row_max, int* arg_min,
                 int* arg_max) {
    if (rows > 0) row_extrema_kernel<<<(rows + 63) / 64, 64>>>(rows, cols, data, row_min, row_max, arg_min, arg_max);
}
