#include <cuda_fp16.h>

// One thread per query row of a window: its L scores (kept in a local array), the softmax, and the
// weighted sum of the value rows, all in fp32 on the CUDA cores.
__global__ void window_attention_naive(int windows, int L, int d, const __half* Q, const __half* K, const __half* V,
                                       float* O) {
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (long long)windows * L) return;
    const long long w = row / L;
    const __half* q = Q + row * d;
    const __half* keys = K + w * L * d;
    const __half* values = V + w * L * d;
    const float scale = rsqrtf((float)d);
    float score[64], acc[64];
    float top = -INFINITY;
    for (int j = 0; j < L; ++j) {
        float dot = 0.0f;
        for (int c = 0; c < d; ++c) dot += __half2float(q[c]) * __half2float(keys[j * d + c]);
        score[j] = dot * scale;
        top = fmaxf(top, score[j]);
    }
    float total = 0.0f;
    for (int c = 0; c < d; ++c) acc[c] = 0.0f;
    for (int j = 0; j < L; ++j) {
        const float p = expf(score[j] - top);
        total += p;
        for (int c = 0; c < d; ++c) acc[c] += p * __half2float(values[j * d + c]);
    }
    for (int c = 0; c < d; ++c) O[row * d + c] = acc[c] / total;
}

void window_attention_f16(int windows, int L, int d, const unsigned short* Q, const unsigned short* K,
                          const unsigned short* V, float* O) {
    const long long rows = (long long)windows * L;
    if (rows <= 0) return;
    window_attention_naive<<<(unsigned)((rows + 127) / 128), 128>>>(
        windows, L, d, reinterpret_cast<const __half*>(Q), reinterpret_cast<const __half*>(K),
        reinterpret_cast<const __half*>(V), O);
}
