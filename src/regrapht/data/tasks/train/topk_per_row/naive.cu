// A direct port: one thread per row keeps its sorted top-k buffer directly in the output arrays.
__global__ void topk_row_kernel(int rows, int cols, int k, const float* scores, float* top_values, int* top_columns) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = scores + static_cast<long long>(r) * cols;
    float* vals = top_values + static_cast<long long>(r) * k;
    int* idx = top_columns + static_cast<long long>(r) * k;
    int held = 0;
    for (int c = 0; c < cols; ++c) {
        const float v = row[c];
        if (held == k && !(v > vals[k - 1])) continue;
        int j = held < k ? held++ : k - 1;
        while (j > 0 && vals[j - 1] < v) {
            vals[j] = vals[j - 1];
            idx[j] = idx[j - 1];
            --j;
        }
        vals[j] = v;
        idx[j] = c;
    }
}

void topk_per_row(int rows, int cols, int k, const float* scores, float* top_values, int* top_columns) {
    if (rows > 0) topk_row_kernel<<<(rows + 127) / 128, 128>>>(rows, cols, k, scores, top_values, top_columns);
}
