__global__ void softmax_row_per_thread(int rows, int cols, const float* logits, float* probs) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = logits + (long long)r * cols;
    float* out = probs + (long long)r * cols;
    float peak = in[0];
    for (int c = 1; c < cols; ++c) peak = fmaxf(peak, in[c]);
    float total = 0.0f;
    for (int c = 0; c < cols; ++c) total += expf(in[c] - peak);
    for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - peak) / total;
}

void softmax_rows(int rows, int cols, const float* logits, float* probs) {
    if (rows > 0) softmax_row_per_thread<<<(rows + 127) / 128, 128>>>(rows, cols, logits, probs);
}
