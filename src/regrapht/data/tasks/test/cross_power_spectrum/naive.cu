// A direct port: one thread per frequency bin, scalar loads of the interleaved pairs.
__global__ void cross_power_kernel(int n, const float* spec_a, const float* spec_b, float* cross, float* magnitude) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const float ar = spec_a[2LL * k], ai = spec_a[2LL * k + 1];
    const float br = spec_b[2LL * k], bi = spec_b[2LL * k + 1];
    const float re = ar * br + ai * bi;
    const float im = ai * br - ar * bi;
    const float mag = sqrtf(re * re + im * im);
    magnitude[k] = mag;
    if (mag > 1e-20f) {
        cross[2LL * k] = re / mag;
        cross[2LL * k + 1] = im / mag;
    } else {
        cross[2LL * k] = 0.0f;
        cross[2LL * k + 1] = 0.0f;
    }
}

void cross_power_spectrum(int n, const float* spec_a, const float* spec_b, float* cross, float* magnitude) {
    if (n > 0) cross_power_kernel<<<(n + 255) / 256, 256>>>(n, spec_a, spec_b, cross, magnitude);
}
