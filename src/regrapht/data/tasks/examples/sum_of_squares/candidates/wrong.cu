// Forgets to reset the accumulator: correct only on the first call.
__global__ void add_squares(int n, const float* x, float* result) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(result, x[i] * x[i]);
}

extern "C" void sum_of_squares(int n, const float* x, float* result) {
    add_squares<<<(n + 255) / 256, 256>>>(n, x, result);
}
