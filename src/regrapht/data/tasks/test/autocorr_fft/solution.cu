// steps: algorithmic_change, shared_memory_tiling, lookup_table, kernel_fusion, work_decomposition, data_layout_transform
// Wiener-Khinchin instead of the direct O(n * lags) sums: r = IFFT(|FFT(x padded to P)|^2) with P the
// power of two >= n + lags - 1 (so the circular correlation has no wrap-around in the wanted lags).
// One block does two signals at once, the whole pipeline in shared memory and one launch: the two
// real signals are the real and imaginary parts of one complex sequence z, whose radix-2 FFT Z gives
// both spectra (X_a[k] = (Z[k] + conj(Z[P-k]))/2, X_b[k] = (Z[k] - conj(Z[P-k]))/2i). The two power
// spectra are real and even, so they are packed the same way into one complex sequence, and its
// forward FFT is P times both autocorrelations (real part a, imaginary part b). Twiddles come from a
// shared table filled once with sincospif; inputs are written in bit-reversed order for the
// iterative decimation-in-time FFT. Its radix-2 stages run three at a time: a thread holds the eight
// elements that three consecutive stages combine only among themselves, in registers (radix-8
// groups, the butterflies and twiddles unchanged), so P = 2048 takes 4 trips through shared memory
// and barriers per FFT instead of 11. A shared element i sits at i + i/8, which puts the strided
// groups of the passes on distinct banks.
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__device__ __forceinline__ int padded(int i) { return i + (i >> 3); }

// R consecutive decimation-in-time stages (spans half, 2 half, ..., 2^(R-1) half), fused in
// registers: group q holds the 2^R elements e + i half that those stages combine only among themselves
template <int R>
__device__ __forceinline__ void fused_stages(float2* a, const float2* tw, int P, int half) {
    constexpr int G = 1 << R;
    for (int q = threadIdx.x; q < (P >> R); q += blockDim.x) {
        const int j = q & (half - 1), e = ((q - j) << R) + j;
        float2 v[G];
#pragma unroll
        for (int i = 0; i < G; ++i) v[i] = a[padded(e + i * half)];
#pragma unroll
        for (int t = 0; t < R; ++t) {
            const int stride = P / (2 * (half << t));  // W_{2h}^k = W_P^(k P / 2h), h = half 2^t
#pragma unroll
            for (int i = 0; i < G; ++i) {
                if ((i >> t) & 1) continue;
                const float2 u = v[i], w = cmul(tw[(j + (i & ((1 << t) - 1)) * half) * stride], v[i + (1 << t)]);
                v[i] = make_float2(u.x + w.x, u.y + w.y);
                v[i + (1 << t)] = make_float2(u.x - w.x, u.y - w.y);
            }
        }
#pragma unroll
        for (int i = 0; i < G; ++i) a[padded(e + i * half)] = v[i];
    }
}

// bit-reversed input, natural output; the caller has synchronized after writing a
__device__ void fft_inplace(float2* a, const float2* tw, int P, int logP) {
    for (int half = 1, left = logP; left > 0;) {  // three stages per barrier while three are left
        const int r = left < 3 ? left : 3;
        if (r == 3) fused_stages<3>(a, tw, P, half);
        else if (r == 2) fused_stages<2>(a, tw, P, half);
        else fused_stages<1>(a, tw, P, half);
        __syncthreads();
        half <<= r;
        left -= r;
    }
}

__global__ void __launch_bounds__(256) autocorr_pair(int batch, int n, int lags, int P, int logP,
                                                     const float* __restrict__ x, float* __restrict__ r) {
    extern __shared__ float2 smem[];
    float2* z = smem;                    // padded(P)
    float2* w = smem + padded(P);        // padded(P)
    float2* tw = smem + 2 * padded(P);   // P / 2
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
        z[padded(__brev(i) >> (32 - logP))] = make_float2(re, im);
    }
    __syncthreads();
    fft_inplace(z, tw, P, logP);
    for (int k = threadIdx.x; k < P; k += blockDim.x) {
        const float2 zk = z[padded(k)], zm = z[padded((P - k) & (P - 1))];
        const float ar = zk.x + zm.x, ai = zk.y - zm.y;  // 2 X_a
        const float br = zk.x - zm.x, bi = zk.y + zm.y;  // 2i X_b, up to a rotation that keeps the modulus
        w[padded(__brev(k) >> (32 - logP))] = make_float2(0.25f * (ar * ar + ai * ai), 0.25f * (br * br + bi * bi));
    }
    __syncthreads();
    fft_inplace(w, tw, P, logP);
    const float scale = 1.0f / P;
    for (int k = threadIdx.x; k < lags; k += blockDim.x) {
        const float2 v = w[padded(k)];
        r[(long long)a * lags + k] = v.x * scale;
        if (has_b) r[(long long)b * lags + k] = v.y * scale;
    }
}

void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    if (batch <= 0) return;
    int P = 2, logP = 1;
    while (P < n + lags - 1) {
        P <<= 1;
        ++logP;
    }
    const size_t shared = (size_t)(2 * (P + P / 8) + P / 2) * sizeof(float2);  // 44 KiB at P = 2048
    autocorr_pair<<<(batch + 1) / 2, 256, shared>>>(batch, n, lags, P, logP, x, r);
}
