// One thread per output element: an int32 dot product of a row of A and a column of B.
__global__ void igemm_naive(int M, int N, int K, const signed char* A, const signed char* B, int* C) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    int acc = 0;
    for (int p = 0; p < K; ++p) acc += (int)A[(long long)row * K + p] * (int)B[(long long)p * N + col];
    C[(long long)row * N + col] = acc;
}

void igemm_s8(int M, int N, int K, const signed char* A, const signed char* B, int* C) {
    if (M <= 0 || N <= 0) return;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    igemm_naive<<<grid, block>>>(M, N, K, A, B, C);
}
