void argmax_any(int n, const int* x, int* index) {
    int best = 0;
    for (int i = 1; i < n; ++i) {
        if (x[i] > x[best]) best = i;
    }
    index[0] = best;
}
