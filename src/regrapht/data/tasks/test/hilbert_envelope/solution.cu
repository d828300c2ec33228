// steps: kernel_fusion, shared_memory_tiling, lookup_table, algorithmic_change
// One block per signal runs the whole pipeline in shared memory, in one launch, where the port makes
// 2*log2(n) + 3 passes over the batch in global memory. The forward FFT is decimation in time
// (bit-reversed input, natural output), the inverse decimation in frequency (natural input,
// bit-reversed output): no reordering pass, and the modulus reads the bit-reversed slot. Both run
// their radix-2 stages three at a time: a thread holds the eight elements that three consecutive
// stages combine only among themselves, in registers (radix-8 groups, the butterflies and twiddles
// of the radix-2 stages unchanged), so n = 4096 takes 4 + 4 trips through shared memory and
// barriers instead of 12 + 12 + 1. The spectrum weighting is applied as the inverse's first pass
// loads its groups (n = 1 has no pass and needs none: H[0] = 1). A block has n/8 threads (at least
// a warp), one group each per pass. A shared element i sits at i + i/8, which puts the strided
// groups of the passes on distinct banks. Twiddles come from a shared table filled once per block
// with sincospif (the inverse uses their conjugates). 52 KiB at n = 4096.
__device__ __forceinline__ int reverse_bits(int i, int logn) { return logn ? (int)(__brev(i) >> (32 - logn)) : 0; }
__device__ __forceinline__ int padded(int i) { return i + (i >> 3); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// R consecutive decimation-in-time stages (spans half, 2 half, ..., 2^(R-1) half), fused in
// registers: group q holds the 2^R elements a + i half that those stages combine only among themselves
template <int R>
__device__ __forceinline__ void forward_stages(float2* z, const float2* tw, int n, int half) {
    constexpr int G = 1 << R;
    for (int q = threadIdx.x; q < (n >> R); q += blockDim.x) {
        const int j = q & (half - 1), a = ((q - j) << R) + j;
        float2 v[G];
#pragma unroll
        for (int i = 0; i < G; ++i) v[i] = z[padded(a + i * half)];
#pragma unroll
        for (int t = 0; t < R; ++t) {
            const int stride = n / (2 * (half << t));  // W_{2h}^e = W_n^(e n / 2h), h = half 2^t
#pragma unroll
            for (int i = 0; i < G; ++i) {
                if ((i >> t) & 1) continue;
                const float2 u = v[i], w = cmul(tw[(j + (i & ((1 << t) - 1)) * half) * stride], v[i + (1 << t)]);
                v[i] = make_float2(u.x + w.x, u.y + w.y);
                v[i + (1 << t)] = make_float2(u.x - w.x, u.y - w.y);
            }
        }
#pragma unroll
        for (int i = 0; i < G; ++i) z[padded(a + i * half)] = v[i];
    }
}

// R consecutive decimation-in-frequency stages of the inverse (spans small 2^(R-1), ..., 2 small,
// small), fused the same way; WEIGHT: the first pass, which applies the analytic-signal weights to
// the natural-order spectrum as it loads it
template <int R, bool WEIGHT>
__device__ __forceinline__ void inverse_stages(float2* z, const float2* tw, int n, int small) {
    constexpr int G = 1 << R;
    for (int q = threadIdx.x; q < (n >> R); q += blockDim.x) {
        const int j = q & (small - 1), a = ((q - j) << R) + j;
        float2 v[G];
#pragma unroll
        for (int i = 0; i < G; ++i) {
            const int k = a + i * small;
            v[i] = z[padded(k)];
            if (WEIGHT) {
                const float h = k == 0 ? 1.0f : (2 * k < n ? 2.0f : (2 * k == n ? 1.0f : 0.0f));
                v[i] = make_float2(h * v[i].x, h * v[i].y);
            }
        }
#pragma unroll
        for (int t = 0; t < R; ++t) {
            const int b = R - 1 - t, stride = n / (2 * (small << b));
#pragma unroll
            for (int i = 0; i < G; ++i) {
                if ((i >> b) & 1) continue;
                const float2 u = v[i], d = v[i + (1 << b)], w = tw[(j + (i & ((1 << b) - 1)) * small) * stride];
                v[i] = make_float2(u.x + d.x, u.y + d.y);
                v[i + (1 << b)] = cmul(make_float2(u.x - d.x, u.y - d.y), make_float2(w.x, -w.y));
            }
        }
#pragma unroll
        for (int i = 0; i < G; ++i) z[padded(a + i * small)] = v[i];
    }
}

__global__ void __launch_bounds__(512) hilbert_block(int n, int logn, const float* __restrict__ x, float* __restrict__ env) {
    extern __shared__ float2 smem[];
    float2* z = smem;                // padded(n)
    float2* tw = smem + padded(n);  // n / 2
    const float* s = x + (long long)blockIdx.x * n;
    for (int j = threadIdx.x; j < n / 2; j += blockDim.x) {
        float sn, cs;
        sincospif(-2.0f * j / n, &sn, &cs);
        tw[j] = make_float2(cs, sn);
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) z[padded(reverse_bits(i, logn))] = make_float2(__ldg(s + i), 0.0f);
    for (int half = 1, left = logn; left > 0;) {  // forward, three stages per barrier while three are left
        const int r = left < 3 ? left : 3;
        __syncthreads();
        if (r == 3) forward_stages<3>(z, tw, n, half);
        else if (r == 2) forward_stages<2>(z, tw, n, half);
        else forward_stages<1>(z, tw, n, half);
        half <<= r;
        left -= r;
    }
    for (int span = n >> 1, left = logn, first = 1; left > 0; first = 0) {  // inverse, largest spans first
        const int r = left < 3 ? left : 3, small = span >> (r - 1);
        __syncthreads();
        if (first) {
            if (r == 3) inverse_stages<3, true>(z, tw, n, small);
            else if (r == 2) inverse_stages<2, true>(z, tw, n, small);
            else inverse_stages<1, true>(z, tw, n, small);
        } else {
            if (r == 3) inverse_stages<3, false>(z, tw, n, small);
            else if (r == 2) inverse_stages<2, false>(z, tw, n, small);
            else inverse_stages<1, false>(z, tw, n, small);
        }
        span = small >> 1;
        left -= r;
    }
    __syncthreads();
    const float inv = 1.0f / n;
    float* out = env + (long long)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const float2 v = z[padded(reverse_bits(i, logn))];
        out[i] = sqrtf(v.x * v.x + v.y * v.y) * inv;
    }
}

void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    (void)work;
    if (batch <= 0 || n <= 0) return;
    int logn = 0;
    while ((1 << logn) < n) ++logn;
    const int threads = n / 8 >= 32 ? n / 8 : 32;  // n <= 4096: at most 512
    const size_t shared = (size_t)(n + n / 8 + n / 2) * sizeof(float2);
    if (shared > 48 * 1024) cudaFuncSetAttribute(hilbert_block, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    hilbert_block<<<batch, threads, shared>>>(n, logn, x, env);
}
