#include <cuda_bf16.h>

// One thread per output element of one batch entry; bf16 operands widened to fp32.
__global__ void bf16_bmm_naive(int batch, int m, int n, int k, const __nv_bfloat16* A, const __nv_bfloat16* B,
                               float* C) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)batch * m * n;
    if (idx >= total) return;
    long long b = idx / ((long long)m * n);
    int rem = (int)(idx - b * m * n);
    int i = rem / n, j = rem % n;
    const __nv_bfloat16* a = A + b * m * k + (long long)i * k;
    const __nv_bfloat16* bm = B + b * k * n + j;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc += __bfloat162float(a[p]) * __bfloat162float(bm[(long long)p * n]);
    C[idx] = acc;
}

void bf16_batched_matmul(int batch, int m, int n, int k, const unsigned short* A, const unsigned short* B,
                         float* C) {
    long long total = (long long)batch * m * n;
    if (total <= 0) return;
    bf16_bmm_naive<<<(unsigned)((total + 255) / 256), 256>>>(batch, m, n, k,
                                                             reinterpret_cast<const __nv_bfloat16*>(A),
                                                             reinterpret_cast<const __nv_bfloat16*>(B), C);
}
