// Benford's-law screening of transaction amounts: leading digit counts per order of magnitude.
void benford_histogram(int n, const float* amounts, unsigned int* counts) {
    for (int b = 0; b < 144; ++b) counts[b] = 0;
    for (int i = 0; i < n; ++i) {
        float v = amounts[i];
        if (!(v > 0.0f)) continue;
        int e = 0;
        while (v >= 10.0f && e < 8) {
            v /= 10.0f;
            ++e;
        }
        while (v < 1.0f && e >= -8) {
            v *= 10.0f;
            --e;
        }
        if (e < -8 || e >= 8) continue;
        const int d = static_cast<int>(v);  // 1..9
        counts[(e + 8) * 9 + (d - 1)] += 1;
    }
}
