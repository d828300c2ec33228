// One thread per query row. Scores are recomputed instead of stored: pass 1 finds the row maximum,
// pass 2 the softmax denominator, pass 3 accumulates the weighted values straight into O.
__global__ void causal_attention_row_per_thread(int batch, int L, int D, float scale, const float* Q, const float* K,
                                                const float* V, float* O) {
    long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (long long)batch * L) return;
    int i = (int)(row % L);
    long long base = (row / L) * L * D;
    const float* q = Q + row * D;
    float* o = O + row * D;
    float peak = -INFINITY;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += q[d] * K[base + (long long)j * D + d];
        peak = fmaxf(peak, dot * scale);
    }
    float total = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += q[d] * K[base + (long long)j * D + d];
        total += expf(dot * scale - peak);
    }
    for (int d = 0; d < D; ++d) o[d] = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < D; ++d) dot += q[d] * K[base + (long long)j * D + d];
        float p = expf(dot * scale - peak) / total;
        for (int d = 0; d < D; ++d) o[d] += p * V[base + (long long)j * D + d];
    }
}

void causal_attention(int batch, int L, int D, const float* Q, const float* K, const float* V, float* O) {
    long long rows = (long long)batch * L;
    if (rows <= 0 || D <= 0) return;
    float scale = 1.0f / sqrtf((float)D);
    causal_attention_row_per_thread<<<(unsigned)((rows + 63) / 64), 64>>>(batch, L, D, scale, Q, K, V, O);
}
