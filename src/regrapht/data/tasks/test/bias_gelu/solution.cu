// steps: parallelize, vectorized_access
// Memory-bound: each thread moves 16 bytes per load and store (float4 over the flat array; cudaMalloc
// buffers are 16-byte aligned) and tracks the column of its four lanes incrementally, so the bias
// gather costs one modulo per four elements. A scalar kernel finishes the last total % 4 elements.

__device__ __forceinline__ float gelu_exact(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678f)); }

__global__ void bias_gelu_vec4(long long total4, int cols, const float4* x, const float* bias, float4* y) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total4) return;
    float4 v = x[i];
    int c = (int)((i * 4) % cols);
    float4 o;
    o.x = gelu_exact(v.x + bias[c]); if (++c == cols) c = 0;
    o.y = gelu_exact(v.y + bias[c]); if (++c == cols) c = 0;
    o.z = gelu_exact(v.z + bias[c]); if (++c == cols) c = 0;
    o.w = gelu_exact(v.w + bias[c]);
    y[i] = o;
}

__global__ void bias_gelu_tail(long long start, long long total, int cols, const float* x, const float* bias, float* y) {
    long long i = start + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    y[i] = gelu_exact(x[i] + bias[(int)(i % cols)]);
}

void bias_gelu(int rows, int cols, const float* x, const float* bias, float* y) {
    long long total = (long long)rows * cols;
    if (total <= 0) return;
    long long total4 = total / 4;
    if (total4 > 0)
        bias_gelu_vec4<<<(unsigned)((total4 + 255) / 256), 256>>>(total4, cols, reinterpret_cast<const float4*>(x), bias,
                                                                  reinterpret_cast<float4*>(y));
    if (total > total4 * 4) bias_gelu_tail<<<1, 32>>>(total4 * 4, total, cols, x, bias, y);
}
