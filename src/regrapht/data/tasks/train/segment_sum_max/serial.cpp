#include <limits>

// Per-segment sum and maximum over a flat array split by offsets (e.g. per-user event totals).
void segment_sum_max(int segments, int n, const int* offsets, const float* values, float* seg_sum,
                     float* seg_max) {
    (void)n;
    for (int s = 0; s < segments; ++s) {
        double total = 0.0;
        float peak = -std::numeric_limits<float>::infinity();
        for (int i = offsets[s]; i < offsets[s + 1]; ++i) {
            total += values[i];
            if (values[i] > peak) peak = values[i];
        }
        seg_sum[s] = static_cast<float>(total);
        seg_max[s] = peak;
    }
}
