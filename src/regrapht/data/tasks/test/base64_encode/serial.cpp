void base64_encode(int n, const unsigned char* in, unsigned char* out) {
    static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    long long o = 0;
    for (long long i = 0; i < n; i += 3) {
        const long long left = n - i;
        unsigned int group = static_cast<unsigned int>(in[i]) << 16;
        if (left > 1) group |= static_cast<unsigned int>(in[i + 1]) << 8;
        if (left > 2) group |= in[i + 2];
        out[o++] = kAlphabet[(group >> 18) & 63];
        out[o++] = kAlphabet[(group >> 12) & 63];
        out[o++] = left > 1 ? kAlphabet[(group >> 6) & 63] : '=';
        out[o++] = left > 2 ? kAlphabet[group & 63] : '=';
    }
}
