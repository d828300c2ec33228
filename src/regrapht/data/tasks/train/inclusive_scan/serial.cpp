void inclusive_scan(int n, const int* in, int* out) {
    unsigned int running = 0;  // unsigned: overflow wraps instead of being undefined
    for (int i = 0; i < n; ++i) {
        running += static_cast<unsigned int>(in[i]);
        out[i] = static_cast<int>(running);
    }
}
