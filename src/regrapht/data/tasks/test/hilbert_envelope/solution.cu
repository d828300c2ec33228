// steps: kernel_fusion, shared_memory_tiling, lookup_table, algorithmic_change
// One block per signal runs the whole pipeline in shared memory, in one launch, where the port makes
// 2*log2(n) + 3 passes over the batch in global memory. The forward FFT is decimation in time
// (bit-reversed input, natural output), so the weighting is applied in natural order in place, and
// the inverse is decimation in frequency (natural input, bit-reversed output): no second reordering
// pass or buffer, and the modulus reads the bit-reversed slot. Twiddles come from a shared table
// filled once per block with sincospif (the inverse uses their conjugates). 48 KiB at n = 4096.
__device__ __forceinline__ int reverse_bits(int i, int logn) { return logn ? (int)(__brev(i) >> (32 - logn)) : 0; }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__global__ void __launch_bounds__(512) hilbert_block(int n, int logn, const float* __restrict__ x, float* __restrict__ env) {
    extern __shared__ float2 smem[];
    float2* a = smem;       // n
    float2* tw = smem + n;  // n / 2
    const float* s = x + (long long)blockIdx.x * n;
    for (int j = threadIdx.x; j < n / 2; j += blockDim.x) {
        float sn, cs;
        sincospif(-2.0f * j / n, &sn, &cs);
        tw[j] = make_float2(cs, sn);
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) a[reverse_bits(i, logn)] = make_float2(__ldg(s + i), 0.0f);
    __syncthreads();
    for (int half = 1; half < n; half <<= 1) {  // forward, decimation in time
        const int stride = n / (2 * half);
        for (int j = threadIdx.x; j < n / 2; j += blockDim.x) {
            const int pos = j & (half - 1);
            const int i0 = ((j - pos) << 1) + pos, i1 = i0 + half;
            const float2 u = a[i0], t = cmul(tw[pos * stride], a[i1]);
            a[i0] = make_float2(u.x + t.x, u.y + t.y);
            a[i1] = make_float2(u.x - t.x, u.y - t.y);
        }
        __syncthreads();
    }
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        const float h = k == 0 ? 1.0f : (2 * k < n ? 2.0f : (2 * k == n ? 1.0f : 0.0f));
        a[k] = make_float2(h * a[k].x, h * a[k].y);
    }
    __syncthreads();
    for (int half = n >> 1; half >= 1; half >>= 1) {  // inverse, decimation in frequency
        const int stride = n / (2 * half);
        for (int j = threadIdx.x; j < n / 2; j += blockDim.x) {
            const int pos = j & (half - 1);
            const int i0 = ((j - pos) << 1) + pos, i1 = i0 + half;
            const float2 u = a[i0], v = a[i1], w = tw[pos * stride];
            a[i0] = make_float2(u.x + v.x, u.y + v.y);
            a[i1] = cmul(make_float2(u.x - v.x, u.y - v.y), make_float2(w.x, -w.y));
        }
        __syncthreads();
    }
    const float inv = 1.0f / n;
    float* out = env + (long long)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const float2 v = a[reverse_bits(i, logn)];
        out[i] = sqrtf(v.x * v.x + v.y * v.y) * inv;
    }
}

void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    (void)work;
    if (batch <= 0 || n <= 0) return;
    int logn = 0;
    while ((1 << logn) < n) ++logn;
    const int threads = n / 2 >= 512 ? 512 : (n / 2 >= 32 ? n / 2 : 32);
    const size_t shared = (size_t)(n + n / 2) * sizeof(float2);
    hilbert_block<<<batch, threads, shared>>>(n, logn, x, env);
}
