__global__ void fir_decimate_kernel(int taps, int decim, int m_out, const float* iq, const float* h, float* out) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= m_out) return;
    const float* window = iq + 2LL * m * decim;
    float acc_i = 0.0f, acc_q = 0.0f;
    for (int k = 0; k < taps; ++k) {
        acc_i += h[k] * window[2 * k];
        acc_q += h[k] * window[2 * k + 1];
    }
    out[2LL * m] = acc_i;
    out[2LL * m + 1] = acc_q;
}

void fir_decimate_iq(int n, int taps, int decim, int m_out, const float* iq, const float* h, float* out) {
    if (m_out <= 0) return;
    fir_decimate_kernel<<<(m_out + 255) / 256, 256>>>(taps, decim, m_out, iq, h, out);
}
