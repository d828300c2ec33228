void fir_decimate_iq(int n, int taps, int decim, int m_out, const float* iq, const float* h, float* out) {
    for (int m = 0; m < m_out; ++m) {
        const float* window = iq + 2LL * m * decim;
        double acc_i = 0.0, acc_q = 0.0;
        for (int k = 0; k < taps; ++k) {
            acc_i += static_cast<double>(h[k]) * window[2 * k];
            acc_q += static_cast<double>(h[k]) * window[2 * k + 1];
        }
        out[2LL * m] = static_cast<float>(acc_i);
        out[2LL * m + 1] = static_cast<float>(acc_q);
    }
}
