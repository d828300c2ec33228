// A direct port: one thread scans one row sequentially.
__global__ void row_scan_kernel(int rows, int cols, const int* counts, int* cumulative, int* row_total) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const int* in = counts + static_cast<long long>(r) * cols;
    int* out = cumulative + static_cast<long long>(r) * cols;
    int running = 0;
    for (int c = 0; c < cols; ++c) {
        running += in[c];
        out[c] = running;
    }
    row_total[r] = running;
}

void row_prefix_sums(int rows, int cols, const int* counts, int* cumulative, int* row_total) {
    if (rows > 0) row_scan_kernel<<<(rows + 63) / 64, 64>>>(rows, cols, counts, cumulative, row_total);
}
