// One thread per output sample, scanning its window.
__global__ void window_kernel(int rows, int n, int win, const float* x, float* lo, float* hi) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)rows * n) return;
    int i = (int)(t % n);
    const float* row = x + (t - i);
    int start = max(i - win + 1, 0);
    float mn = row[start], mx = row[start];
    for (int k = start + 1; k <= i; ++k) {
        mn = fminf(mn, row[k]);
        mx = fmaxf(mx, row[k]);
    }
    lo[t] = mn;
    hi[t] = mx;
}

void sliding_window_minmax(int rows, int n, int win, const float* x, float* lo, float* hi) {
    long long total = (long long)rows * n;
    if (total <= 0) return;
    window_kernel<<<(unsigned)((total + 255) / 256), 256>>>(rows, n, win, x, lo, hi);
}
