// A direct port: a grid-stride loop in which every thread sums its squares in double, then adds its
// partial to one double accumulator (float atomics would stall once the running sum dwarfs each
// term); one thread rounds the total to float.
__global__ void add_squares(int n, const float* x, double* total) {
    double sum = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += static_cast<double>(x[i]) * x[i];
    atomicAdd(total, sum);
}

__global__ void store_result(const double* total, float* result) { result[0] = static_cast<float>(*total); }

void sum_of_squares(int n, const float* x, float* result) {
    static double* total = nullptr;
    if (total == nullptr) cudaMalloc(&total, sizeof(double));
    cudaMemsetAsync(total, 0, sizeof(double));
    // enough blocks to fill any current GPU, few enough that the atomics stay cheap
    int blocks = (n + 255) / 256 < 2048 ? (n + 255) / 256 : 2048;
    if (n > 0) add_squares<<<blocks, 256>>>(n, x, total);
    store_result<<<1, 1>>>(total, result);
}
