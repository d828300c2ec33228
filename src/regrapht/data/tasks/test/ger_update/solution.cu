// steps: parallelize, vectorized_access
// A purely bandwidth-bound update: when rows are 16-byte aligned (n % 4 == 0) every thread reads and
// writes a float4 of A and of y; alpha*x[i] is formed once per thread. Otherwise a scalar row kernel.

__global__ void ger_update_vec4(int m, int n4, float alpha, const float* __restrict__ x,
                                const float4* __restrict__ y, float4* __restrict__ A) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= n4) return;
    float s = alpha * x[i];
    float4 yv = y[j];
    float4* p = A + (long long)i * n4 + j;
    float4 a = *p;
    a.x += s * yv.x;
    a.y += s * yv.y;
    a.z += s * yv.z;
    a.w += s * yv.w;
    *p = a;
}

__global__ void ger_update_rows(int m, int n, float alpha, const float* __restrict__ x, const float* __restrict__ y,
                                float* __restrict__ A) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= n) return;
    float s = alpha * x[i];
    A[(long long)i * n + j] += s * y[j];
}

void ger_update(int m, int n, float alpha, const float* x, const float* y, float* A) {
    if (m <= 0 || n <= 0) return;
    const int threads = 256;
    if (n % 4 == 0) {
        int n4 = n / 4;
        dim3 grid((n4 + threads - 1) / threads, m);
        ger_update_vec4<<<grid, threads>>>(m, n4, alpha, x, reinterpret_cast<const float4*>(y),
                                           reinterpret_cast<float4*>(A));
    } else {
        dim3 grid((n + threads - 1) / threads, m);
        ger_update_rows<<<grid, threads>>>(m, n, alpha, x, y, A);
    }
}
