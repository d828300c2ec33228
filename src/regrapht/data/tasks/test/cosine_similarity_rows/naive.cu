// A direct port: one thread per row walks both rows (neighbouring threads are dim floats apart).
__global__ void cosine_kernel(int rows, int dim, const float* a, const float* b, float* cosine, float* norm_a) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* x = a + static_cast<long long>(r) * dim;
    const float* y = b + static_cast<long long>(r) * dim;
    double dot = 0.0, xx = 0.0, yy = 0.0;
    for (int j = 0; j < dim; ++j) {
        dot += static_cast<double>(x[j]) * y[j];
        xx += static_cast<double>(x[j]) * x[j];
        yy += static_cast<double>(y[j]) * y[j];
    }
    const double nx = sqrt(xx), ny = sqrt(yy);
    norm_a[r] = static_cast<float>(nx);
    cosine[r] = static_cast<float>(dot / fmax(nx * ny, 1e-12));
}

void cosine_similarity_rows(int rows, int dim, const float* a, const float* b, float* cosine, float* norm_a) {
    if (rows > 0) cosine_kernel<<<(rows + 127) / 128, 128>>>(rows, dim, a, b, cosine, norm_a);
}
