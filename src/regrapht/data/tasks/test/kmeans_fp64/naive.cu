// One thread per point finds its nearest centroid and adds itself to that cluster's sums with
// global atomics; then one thread per centroid coordinate divides. Two kernels an iteration.
__global__ void kmeans_assign(int n, int k, int dims, const double* points, const double* centroids, int* labels,
                              double* sums, int* counts) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const double* x = points + (long long)p * dims;
    int best = 0;
    double best_d = 0.0;
    for (int c = 0; c < k; ++c) {
        double d = 0.0;
        for (int j = 0; j < dims; ++j) {
            double t = x[j] - centroids[c * dims + j];
            d += t * t;
        }
        if (c == 0 || d < best_d) {
            best_d = d;
            best = c;
        }
    }
    labels[p] = best;
    atomicAdd(&counts[best], 1);
    for (int j = 0; j < dims; ++j) atomicAdd(&sums[best * dims + j], x[j]);
}

__global__ void kmeans_update(int k, int dims, const double* sums, const int* counts, double* centroids) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= k * dims) return;
    int c = e / dims;
    if (counts[c] > 0) centroids[e] = sums[e] / counts[c];
}

void kmeans_fp64(int n, int k, int dims, int iters, const double* points, const double* init, int* labels,
                 double* centroids) {
    if (k <= 0 || dims <= 0) return;
    static double* sums = nullptr;
    static int* counts = nullptr;
    static int capacity = 0;
    if (k * dims > capacity) {
        if (sums) {
            cudaFree(sums);
            cudaFree(counts);
        }
        cudaMalloc(&sums, k * dims * sizeof(double));
        cudaMalloc(&counts, k * dims * sizeof(int));
        capacity = k * dims;
    }
    cudaMemcpyAsync(centroids, init, k * dims * sizeof(double), cudaMemcpyDeviceToDevice);
    for (int it = 0; it < iters; ++it) {
        cudaMemsetAsync(sums, 0, k * dims * sizeof(double));
        cudaMemsetAsync(counts, 0, k * sizeof(int));
        if (n > 0) kmeans_assign<<<(n + 255) / 256, 256>>>(n, k, dims, points, centroids, labels, sums, counts);
        kmeans_update<<<(k * dims + 255) / 256, 256>>>(k, dims, sums, counts, centroids);
    }
}
