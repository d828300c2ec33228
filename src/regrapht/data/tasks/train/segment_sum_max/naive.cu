// A direct port: one thread walks one segment.
__global__ void segment_sum_max_kernel(int segments, const int* offsets, const float* values, float* seg_sum,
                                       float* seg_max) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= segments) return;
    double total = 0.0;
    float peak = -INFINITY;
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) {
        total += values[i];
        peak = fmaxf(peak, values[i]);
    }
    seg_sum[s] = static_cast<float>(total);
    seg_max[s] = peak;
}

void segment_sum_max(int segments, int n, const int* offsets, const float* values, float* seg_sum,
                     float* seg_max) {
    (void)n;
    if (segments > 0)
        segment_sum_max_kernel<<<(segments + 255) / 256, 256>>>(segments, offsets, values, seg_sum, seg_max);
}
