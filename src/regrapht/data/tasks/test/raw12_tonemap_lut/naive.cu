// One thread per pixel: its three samples through the gains and the curve (read from global memory).
__global__ void tonemap_kernel(int n, const unsigned short* raw, int black, const int* gain_q8,
                               const unsigned char* curve, unsigned char* out) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    for (int ch = 0; ch < 3; ++ch) {
        int x = raw[3 * p + ch] - black;
        if (x < 0) x = 0;
        x = (x * gain_q8[ch]) >> 8;
        if (x > 4095) x = 4095;
        out[3 * p + ch] = curve[x];
    }
}

void raw12_tonemap_lut(int n, const unsigned short* raw, int black, const int* gain_q8, const unsigned char* curve,
                       unsigned char* out) {
    if (n <= 0) return;
    tonemap_kernel<<<(n + 255) / 256, 256>>>(n, raw, black, gain_q8, curve, out);
}
