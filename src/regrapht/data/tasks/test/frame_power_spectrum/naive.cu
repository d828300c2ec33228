// One thread per output bin: the DFT sum of its frame at that frequency, in fp32, with the twiddle
// angle reduced exactly ((k * t) mod n) before sincospif.
__global__ void bin_power(int batch, int n, const float* x, float* P) {
    const int bins = n / 2 + 1;
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * bins) return;
    long long b = idx / bins;
    int k = (int)(idx - b * bins);
    const float* frame = x + b * n;
    float re = 0.0f, im = 0.0f;
    int phase = 0;  // (k * t) mod n
    for (int t = 0; t < n; ++t) {
        float s, c;
        sincospif(-2.0f * phase / n, &s, &c);
        re += frame[t] * c;
        im += frame[t] * s;
        phase += k;
        if (phase >= n) phase -= n;
    }
    P[idx] = re * re + im * im;
}

void frame_power_spectrum(int batch, int n, const float* x, float* P) {
    if (batch <= 0 || n <= 0) return;
    long long total = (long long)batch * (n / 2 + 1);
    bin_power<<<(unsigned)((total + 255) / 256), 256>>>(batch, n, x, P);
}
