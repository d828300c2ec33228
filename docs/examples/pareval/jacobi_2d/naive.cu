// One thread per cell; x is the column, y the row.
__global__ void jacobi2D(const double* input, double* output, size_t N) {
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t i = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    if (i >= N || j >= N) return;
    double up = i > 0 ? input[(i - 1) * N + j] : 0.0;
    double down = i + 1 < N ? input[(i + 1) * N + j] : 0.0;
    double left = j > 0 ? input[i * N + j - 1] : 0.0;
    double right = j + 1 < N ? input[i * N + j + 1] : 0.0;
    output[i * N + j] = (left + right + up + down + input[i * N + j]) / 5.0;
}
