// steps: algorithmic_change, shared_memory_tiling, lookup_table, kernel_fusion, work_decomposition, data_layout_transform
// Wiener-Khinchin instead of the direct O(n * lags) sums: r = IFFT(|FFT(x padded to P)|^2) with P the
// power of two >= n + lags - 1 (so the circular correlation has no wrap-around in the wanted lags).
// One block does two signals at once, the whole pipeline in shared memory and one launch: the two
// real signals are the real and imaginary parts of one complex sequence z, whose radix-2 FFT Z gives
// both spectra (X_a[k] = (Z[k] + conj(Z[P-k]))/2, X_b[k] = (Z[k] - conj(Z[P-k]))/2i). The two power
// spectra are real and even, so they are packed the same way into one complex sequence, and its
// forward FFT is P times both autocorrelations (real part a, imaginary part b). Twiddles come from a
// shared table filled once with sincospif; inputs are written in bit-reversed order for the
// iterative decimation-in-time FFT.
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__device__ void fft_inplace(float2* a, const float2* tw, int P) {
    for (int half = 1; half < P; half <<= 1) {
        const int stride = P / (2 * half);
        for (int j = threadIdx.x; j < P / 2; j += blockDim.x) {
            const int pos = j & (half - 1);
            const int i0 = ((j - pos) << 1) + pos, i1 = i0 + half;
            const float2 u = a[i0], t = cmul(tw[pos * stride], a[i1]);
            a[i0] = make_float2(u.x + t.x, u.y + t.y);
            a[i1] = make_float2(u.x - t.x, u.y - t.y);
        }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(256) autocorr_pair(int batch, int n, int lags, int P, int logP,
                                                     const float* __restrict__ x, float* __restrict__ r) {
    extern __shared__ float2 smem[];
    float2* z = smem;          // P
    float2* w = smem + P;      // P
    float2* tw = smem + 2 * P; // P / 2
    const int a = 2 * blockIdx.x, b = a + 1;
    const bool has_b = b < batch;
    const float* xa = x + (long long)a * n;
    const float* xb = x + (long long)b * n;
    for (int j = threadIdx.x; j < P / 2; j += blockDim.x) {
        float s, c;
        sincospif(-2.0f * j / P, &s, &c);
        tw[j] = make_float2(c, s);
    }
    for (int i = threadIdx.x; i < P; i += blockDim.x) {
        const float re = i < n ? __ldg(xa + i) : 0.0f;
        const float im = i < n && has_b ? __ldg(xb + i) : 0.0f;
        z[__brev(i) >> (32 - logP)] = make_float2(re, im);
    }
    __syncthreads();
    fft_inplace(z, tw, P);
    for (int k = threadIdx.x; k < P; k += blockDim.x) {
        const float2 zk = z[k], zm = z[(P - k) & (P - 1)];
        const float ar = zk.x + zm.x, ai = zk.y - zm.y;  // 2 X_a
        const float br = zk.x - zm.x, bi = zk.y + zm.y;  // 2i X_b, up to a rotation that keeps the modulus
        w[__brev(k) >> (32 - logP)] = make_float2(0.25f * (ar * ar + ai * ai), 0.25f * (br * br + bi * bi));
    }
    __syncthreads();
    fft_inplace(w, tw, P);
    const float scale = 1.0f / P;
    for (int k = threadIdx.x; k < lags; k += blockDim.x) {
        r[(long long)a * lags + k] = w[k].x * scale;
        if (has_b) r[(long long)b * lags + k] = w[k].y * scale;
    }
}

void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    if (batch <= 0) return;
    int P = 2, logP = 1;
    while (P < n + lags - 1) {
        P <<= 1;
        ++logP;
    }
    const size_t shared = (size_t)(2 * P + P / 2) * sizeof(float2);  // 40 KiB at P = 2048
    autocorr_pair<<<(batch + 1) / 2, 256, shared>>>(batch, n, lags, P, logP, x, r);
}
