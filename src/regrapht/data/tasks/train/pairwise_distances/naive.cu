__global__ void pairwise_distances_kernel(int na, int nb, int dims, const float* A, const float* B, float* D) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (i >= na || j >= nb) return;
    const float* a = A + (long long)i * dims;
    const float* b = B + (long long)j * dims;
    float sq = 0.0f;
    for (int d = 0; d < dims; ++d) {
        float diff = a[d] - b[d];
        sq += diff * diff;
    }
    D[(long long)i * nb + j] = sqrtf(sq);
}

void pairwise_distances(int na, int nb, int dims, const float* A, const float* B, float* D) {
    if (na <= 0 || nb <= 0) return;
    dim3 grid((nb + 255) / 256, na);
    pairwise_distances_kernel<<<grid, 256>>>(na, nb, dims, A, B, D);
}
