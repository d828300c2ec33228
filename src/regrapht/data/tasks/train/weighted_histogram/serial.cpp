#include <vector>

// Weighted histogram over uniform bins, e.g. an energy spectrum of detector hits weighted by efficiency.
void weighted_histogram(int n, int bins, float lo, float hi, const float* values, const float* weights,
                        float* bin_weight, unsigned int* bin_count) {
    std::vector<double> sums(bins, 0.0);
    for (int b = 0; b < bins; ++b) bin_count[b] = 0;
    const float scale = static_cast<float>(bins) / (hi - lo);
    for (int i = 0; i < n; ++i) {
        const float v = values[i];
        if (!(v >= lo && v < hi)) continue;
        const int b = static_cast<int>((v - lo) * scale);
        if (b >= bins) continue;
        sums[b] += weights[i];
        bin_count[b] += 1;
    }
    for (int b = 0; b < bins; ++b) bin_weight[b] = static_cast<float>(sums[b]);
}
