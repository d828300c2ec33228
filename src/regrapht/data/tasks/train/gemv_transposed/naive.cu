// A direct parallel port: the rows are cut into chunks of GT_CHUNK, one thread per (chunk, column)
// sums its piece of the column (consecutive threads take consecutive columns, so the loads
// coalesce), and one thread per column then adds its pieces in order and applies alpha and beta.
#define GT_CHUNK 512

__global__ void gemv_t_pieces(int m, int n, int chunks, const float* A, const float* x, float* pieces) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)chunks * n) return;
    int j = (int)(t % n), chunk = (int)(t / n);
    int i0 = chunk * GT_CHUNK, i1 = min(m, i0 + GT_CHUNK);
    float sum = 0.0f;
    for (int i = i0; i < i1; ++i) sum += A[(long long)i * n + j] * x[i];
    pieces[t] = sum;
}

__global__ void gemv_t_combine(int n, int chunks, float alpha, const float* pieces, float beta, float* y) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < chunks; ++k) sum += pieces[(long long)k * n + j];
    y[j] = alpha * sum + beta * y[j];
}

void gemv_transposed(int m, int n, float alpha, const float* A, const float* x, float beta, float* y) {
    if (n <= 0) return;
    int chunks = (m + GT_CHUNK - 1) / GT_CHUNK;
    static float* pieces = nullptr;
    static long long capacity = 0;
    long long need = (long long)chunks * n;
    if (need > capacity) {
        if (pieces) cudaFree(pieces);
        cudaMalloc(&pieces, need * sizeof(float));
        capacity = need;
    }
    if (need > 0) gemv_t_pieces<<<(int)((need + 255) / 256), 256>>>(m, n, chunks, A, x, pieces);
    gemv_t_combine<<<(n + 255) / 256, 256>>>(n, chunks, alpha, pieces, beta, y);
}
