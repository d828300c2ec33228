__global__ void row_normalize_kernel(int rows, int dims, const float* features, float* unit, float* norms) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = features + (long long)r * dims;
    float sum = 0.0f;
    for (int d = 0; d < dims; ++d) sum += row[d] * row[d];
    float norm = sqrtf(sum);
    norms[r] = norm;
    float scale = norm > 0.0f ? 1.0f / norm : 0.0f;
    for (int d = 0; d < dims; ++d) unit[(long long)r * dims + d] = row[d] * scale;
}

void row_normalize(int rows, int dims, const float* features, float* unit, float* norms) {
    if (rows > 0) row_normalize_kernel<<<(rows + 255) / 256, 256>>>(rows, dims, features, unit, norms);
}
