void raw12_tonemap_lut(int n, const unsigned short* raw, int black, const int* gain_q8, const unsigned char* curve,
                       unsigned char* out) {
    for (long long i = 0; i < 3LL * n; ++i) {
        int ch = static_cast<int>(i % 3);
        int x = raw[i] - black;
        if (x < 0) x = 0;
        x = (x * gain_q8[ch]) >> 8;
        if (x > 4095) x = 4095;
        out[i] = curve[x];
    }
}
