#include <cuda_fp16.h>

// One thread per query row (batch, head, i): pass 1 keeps a running maximum and rescaled sum of the
// exponentiated scores, pass 2 recomputes each score and accumulates its weighted value row
// straight into O.
__global__ void gqa_attn_row_per_thread(int batch, int Hq, int Hkv, int L, int D, float scale, const __half* Q,
                                        const __half* K, const __half* V, float* O) {
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (long long)batch * Hq * L) return;
    const int i = (int)(row % L);
    const long long bh = row / L;
    const long long b = bh / Hq;
    const int h = (int)(bh % Hq);
    const long long kv = ((b * Hkv + h / (Hq / Hkv)) * L) * D;
    const __half* q = Q + row * D;
    float* o = O + row * D;
    float peak = -INFINITY, total = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += __half2float(q[d]) * __half2float(K[kv + (long long)j * D + d]);
        const float s = dot * scale;
        if (s > peak) {
            total = total * expf(peak - s) + 1.0f;
            peak = s;
        } else {
            total += expf(s - peak);
        }
    }
    for (int d = 0; d < D; ++d) o[d] = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += __half2float(q[d]) * __half2float(K[kv + (long long)j * D + d]);
        const float p = expf(dot * scale - peak) / total;
        for (int d = 0; d < D; ++d) o[d] += p * __half2float(V[kv + (long long)j * D + d]);
    }
}

void gqa_causal_attn_f16(int batch, int Hq, int Hkv, int L, int D, const unsigned short* Q, const unsigned short* K,
                         const unsigned short* V, float* O) {
    const long long rows = (long long)batch * Hq * L;
    if (rows <= 0) return;
    gqa_attn_row_per_thread<<<(unsigned)((rows + 63) / 64), 64>>>(
        batch, Hq, Hkv, L, D, 1.0f / sqrtf((float)D), reinterpret_cast<const __half*>(Q),
        reinterpret_cast<const __half*>(K), reinterpret_cast<const __half*>(V), O);
}
