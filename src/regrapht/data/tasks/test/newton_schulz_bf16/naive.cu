// The serial algorithm in fp32 on the CUDA cores, one kernel per phase: the Frobenius norm (a block
// reduction per block, one atomic add each), the scaling, then per step one thread per element of
// A = X X^T, of B = b A + c A A and of the next X = a X + B X. X ping-pongs between the output and
// work; work also holds A, B and the norm.
constexpr float NS_A = 3.4445f, NS_B = -4.7750f, NS_C = 2.0315f;

__global__ void sum_squares(long long count, const float* G, float* total) {
    __shared__ float part[256];
    float acc = 0.0f;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x)
        acc += G[e] * G[e];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}

__global__ void scale(long long count, const float* G, const float* total, float* X) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) X[e] = G[e] / (sqrtf(*total) + 1e-7f);
}

__global__ void gram(int m, int n, const float* X, float* A) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= m) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc = fmaf(X[(long long)i * n + k], X[(long long)j * n + k], acc);
    A[(long long)i * m + j] = acc;
}

__global__ void quintic(int m, const float* A, float* B) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= m) return;
    float acc = 0.0f;
    for (int k = 0; k < m; ++k) acc = fmaf(A[(long long)i * m + k], A[(long long)k * m + j], acc);
    B[(long long)i * m + j] = NS_B * A[(long long)i * m + j] + NS_C * acc;
}

__global__ void update(int m, int n, const float* B, const float* X, float* next) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < m; ++k) acc = fmaf(B[(long long)i * m + k], X[(long long)k * n + j], acc);
    next[(long long)i * n + j] = NS_A * X[(long long)i * n + j] + acc;
}

void newton_schulz_bf16(int m, int n, int steps, const float* G, float* X, float* work) {
    const long long mn = (long long)m * n, mm = (long long)m * m;
    if (mn <= 0) return;
    float* other = work;
    float* A = work + mn;
    float* B = A + mm;
    float* total = B + mm;
    cudaMemsetAsync(total, 0, sizeof(float));
    sum_squares<<<1024, 256>>>(mn, G, total);
    // the last step must land in X: start in X when the step count is even
    float* cur = steps % 2 == 0 ? X : other;
    float* nxt = cur == X ? other : X;
    scale<<<(unsigned)((mn + 255) / 256), 256>>>(mn, G, total, cur);
    const dim3 block(256);
    for (int s = 0; s < steps; ++s) {
        gram<<<dim3((m + 255) / 256, m), block>>>(m, n, cur, A);
        quintic<<<dim3((m + 255) / 256, m), block>>>(m, A, B);
        update<<<dim3((n + 255) / 256, m), block>>>(m, n, B, cur, nxt);
        float* t = cur;
        cur = nxt;
        nxt = t;
    }
}
