// A direct port: every thread adds its square into one double accumulator (float atomics would
// stall once the running sum dwarfs each term), then one thread rounds the total to float.
__global__ void add_squares(int n, const float* x, double* total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, static_cast<double>(x[i]) * x[i]);
}

__global__ void store_result(const double* total, float* result) { result[0] = static_cast<float>(*total); }

void sum_of_squares(int n, const float* x, float* result) {
    static double* total = nullptr;
    if (total == nullptr) cudaMalloc(&total, sizeof(double));
    cudaMemset(total, 0, sizeof(double));
    if (n > 0) add_squares<<<(n + 255) / 256, 256>>>(n, x, total);
    store_result<<<1, 1>>>(total, result);
}
