#include <cmath>

static float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

static float lab_f(float t) {
    const float delta = 6.0f / 29.0f;
    return t > delta * delta * delta ? std::cbrt(t) : t / (3.0f * delta * delta) + 4.0f / 29.0f;
}

void srgb_to_lab(int n, const float* rgb, float* lab_l, float* lab_a, float* lab_b) {
    for (int i = 0; i < n; ++i) {
        float r = srgb_to_linear(rgb[3 * i]);
        float g = srgb_to_linear(rgb[3 * i + 1]);
        float b = srgb_to_linear(rgb[3 * i + 2]);
        float x = (0.4124564f * r + 0.3575761f * g + 0.1804375f * b) / 0.95047f;
        float y = 0.2126729f * r + 0.7151522f * g + 0.0721750f * b;
        float z = (0.0193339f * r + 0.1191920f * g + 0.9503041f * b) / 1.08883f;
        float fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
        lab_l[i] = 116.0f * fy - 16.0f;
        lab_a[i] = 500.0f * (fx - fy);
        lab_b[i] = 200.0f * (fy - fz);
    }
}
