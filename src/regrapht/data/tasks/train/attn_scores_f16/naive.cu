#include <cuda_fp16.h>
#include <math_constants.h>

// One thread per score: thread (i, j) of head h takes the dot product of query row i and key row j,
// or writes -inf above the diagonal.
__global__ void attn_scores_naive(int heads, int L, int d, float scale, const __half* Q, const __half* K,
                                  float* S) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int h = blockIdx.z;
    if (i >= L || j >= L) return;
    long long out = ((long long)h * L + i) * L + j;
    if (j > i) {
        S[out] = -CUDART_INF_F;
        return;
    }
    const __half* q = Q + ((long long)h * L + i) * d;
    const __half* k = K + ((long long)h * L + j) * d;
    float acc = 0.0f;
    for (int c = 0; c < d; ++c) acc += __half2float(q[c]) * __half2float(k[c]);
    S[out] = scale * acc;
}

void attn_scores_f16(int heads, int L, int d, float scale, const unsigned short* Q, const unsigned short* Kt,
                     float* S) {
    if (heads <= 0 || L <= 0) return;
    dim3 block(16, 16);
    dim3 grid((L + 15) / 16, (L + 15) / 16, heads);
    attn_scores_naive<<<grid, block>>>(heads, L, d, scale, reinterpret_cast<const __half*>(Q),
                                       reinterpret_cast<const __half*>(Kt), S);
}
