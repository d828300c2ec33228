// A direct port: one thread per row scans it from the left and stops at the first crossing.
__global__ void first_above_kernel(int rows, int cols, const float* values, float threshold, int* first) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = values + static_cast<long long>(r) * cols;
    int found = -1;
    for (int c = 0; c < cols; ++c) {
        if (row[c] > threshold) {
            found = c;
            break;
        }
    }
    first[r] = found;
}

void first_above_per_row(int rows, int cols, const float* values, float threshold, int* first) {
    if (rows > 0) first_above_kernel<<<(rows + 255) / 256, 256>>>(rows, cols, values, threshold, first);
}
