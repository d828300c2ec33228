#include <cmath>

// Cross-power spectrum for phase correlation (image registration): whiten A * conj(B) to unit modulus.
void cross_power_spectrum(int n, const float* spec_a, const float* spec_b, float* cross, float* magnitude) {
    for (int k = 0; k < n; ++k) {
        const float ar = spec_a[2 * k], ai = spec_a[2 * k + 1];
        const float br = spec_b[2 * k], bi = spec_b[2 * k + 1];
        const float re = ar * br + ai * bi;
        const float im = ai * br - ar * bi;
        const float mag = std::sqrt(re * re + im * im);
        magnitude[k] = mag;
        if (mag > 1e-20f) {
            cross[2 * k] = re / mag;
            cross[2 * k + 1] = im / mag;
        } else {
            cross[2 * k] = 0.0f;
            cross[2 * k + 1] = 0.0f;
        }
    }
}
