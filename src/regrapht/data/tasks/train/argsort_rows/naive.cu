// A direct port: one thread per row runs a stable insertion sort in the output arrays.
__global__ void argsort_row_kernel(int rows, int cols, const float* values, float* sorted, int* order) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = values + static_cast<long long>(r) * cols;
    float* out = sorted + static_cast<long long>(r) * cols;
    int* idx = order + static_cast<long long>(r) * cols;
    for (int c = 0; c < cols; ++c) {
        const float v = row[c];
        int j = c;
        while (j > 0 && out[j - 1] > v) {
            out[j] = out[j - 1];
            idx[j] = idx[j - 1];
            --j;
        }
        out[j] = v;
        idx[j] = c;
    }
}

void argsort_rows(int rows, int cols, const float* values, float* sorted, int* order) {
    if (rows > 0) argsort_row_kernel<<<(rows + 127) / 128, 128>>>(rows, cols, values, sorted, order);
}
