// steps: algorithmic_change, shared_memory_tiling, vectorized_access, read_only_cache, persistent_kernel
// The real frame of n samples is read as m = n/2 complex values z[t] = x[2t] + i x[2t+1] (one float2
// load each, stored bit-reversed in shared memory), transformed by an m-point FFT in shared memory,
// and split into the real signal's spectrum: X[k] = E[k] + W_n^k O[k] with E, O from Z[k] and
// conj(Z[m - k]). The FFT's radix-2 stages run three at a time: a thread holds the eight elements
// that three consecutive stages combine only among themselves, in registers (radix-8 groups, the
// butterflies and twiddles of the radix-2 stages unchanged), so m = 512 takes three trips through
// shared memory and three barriers instead of nine. A block has m/8 threads (at least a warp), one
// group each per pass, so small blocks fill the SMs; a shared element i sits at i + i/8, which puts
// the eight threads' strided groups of the first pass (and the blocks of eight of the second) on
// distinct banks. Both twiddle tables (W_m^j for the FFT, W_n^k for the split) are filled once per
// block. A persistent block loops over frames and loads the next frame into registers while it
// transforms the current one.

constexpr int MAX_M = 2048;                      // n <= 4096
constexpr int MAX_THREADS = MAX_M / 8;           // one radix-8 group per thread
constexpr int PER_THREAD = MAX_M / MAX_THREADS;  // complex values a thread loads per frame (at most)

__device__ __forceinline__ int padded(int i) { return i + (i >> 3); }

__device__ __forceinline__ void butterfly(float2* v, int a, int b, float2 w) {
    const float2 u = v[a], t = v[b];
    const float tr = w.x * t.x - w.y * t.y, ti = w.x * t.y + w.y * t.x;
    v[a] = make_float2(u.x + tr, u.y + ti);
    v[b] = make_float2(u.x - tr, u.y - ti);
}

// R consecutive decimation-in-time stages (half, 2 half, ..., 2^(R-1) half) of the m-point FFT in z,
// fused in registers: group q holds the 2^R elements a + i half that those stages combine only
// among themselves
template <int R>
__device__ __forceinline__ void fused_stages(float2* z, const float2* tw, int m, int half) {
    constexpr int G = 1 << R;
    for (int q = threadIdx.x; q < (m >> R); q += blockDim.x) {
        const int j = q & (half - 1), a = ((q - j) << R) + j;
        float2 v[G];
#pragma unroll
        for (int i = 0; i < G; ++i) v[i] = z[padded(a + i * half)];
#pragma unroll
        for (int t = 0; t < R; ++t) {
            const int stride = m / (2 * (half << t));  // W_{2h}^e = W_m^(e m / 2h), h = half 2^t
#pragma unroll
            for (int i = 0; i < G; ++i) {
                if ((i >> t) & 1) continue;
                butterfly(v, i, i + (1 << t), tw[(j + (i & ((1 << t) - 1)) * half) * stride]);
            }
        }
#pragma unroll
        for (int i = 0; i < G; ++i) z[padded(a + i * half)] = v[i];
    }
}

__global__ void __launch_bounds__(MAX_THREADS) power_fft(int batch, int n, const float2* __restrict__ x, float* __restrict__ P) {
    extern __shared__ float2 smem[];
    const int m = n / 2, bits = __ffs(m) - 1, bins = m + 1;
    float2* z = smem;                   // padded(m) elements
    float2* tw = z + padded(m);         // W_m^j, j < m/2
    float2* split = tw + (m + 1) / 2;   // W_n^k, k <= m
    for (int j = threadIdx.x; j < m / 2; j += blockDim.x) {
        float s, c;
        sincospif(-2.0f * j / m, &s, &c);
        tw[j] = make_float2(c, s);
    }
    for (int k = threadIdx.x; k < bins; k += blockDim.x) {
        float s, c;
        sincospif(-(float)k / m, &s, &c);
        split[k] = make_float2(c, s);
    }
    float2 next[PER_THREAD];
    int frame = blockIdx.x;
    if (frame < batch) {
#pragma unroll
        for (int r = 0; r < PER_THREAD; ++r) {
            const int t = threadIdx.x + r * blockDim.x;
            if (t < m) next[r] = __ldg(x + (long long)frame * m + t);
        }
    }
    for (; frame < batch; frame += gridDim.x) {
        __syncthreads();  // the previous frame's spectrum is read out of z (and, first, the tables are in)
#pragma unroll
        for (int r = 0; r < PER_THREAD; ++r) {
            const int t = threadIdx.x + r * blockDim.x;
            if (t < m) z[padded(bits == 0 ? 0 : __brev(t) >> (32 - bits))] = next[r];
        }
        const int following = frame + gridDim.x;
        if (following < batch) {
#pragma unroll
            for (int r = 0; r < PER_THREAD; ++r) {
                const int t = threadIdx.x + r * blockDim.x;
                if (t < m) next[r] = __ldg(x + (long long)following * m + t);
            }
        }
        for (int half = 1, left = bits; left > 0;) {  // three stages per barrier while three are left
            const int r = left < 3 ? left : 3;
            __syncthreads();
            if (r == 3) fused_stages<3>(z, tw, m, half);
            else if (r == 2) fused_stages<2>(z, tw, m, half);
            else fused_stages<1>(z, tw, m, half);
            half <<= r;
            left -= r;
        }
        __syncthreads();
        float* out = P + (long long)frame * bins;
        for (int k = threadIdx.x; k < bins; k += blockDim.x) {
            const float2 a = z[padded(k == m ? 0 : k)], b = z[padded(k == 0 ? 0 : m - k)];
            const float er = 0.5f * (a.x + b.x), ei = 0.5f * (a.y - b.y);  // E[k]
            const float orr = 0.5f * (a.y + b.y), oi = -0.5f * (a.x - b.x);  // O[k]
            const float2 w = split[k];  // W_n^k
            const float xr = er + w.x * orr - w.y * oi, xi = ei + w.x * oi + w.y * orr;
            out[k] = xr * xr + xi * xi;
        }
    }
}

__global__ void square_samples(int batch, const float* x, float* P) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < batch) P[i] = x[i] * x[i];
}

void frame_power_spectrum(int batch, int n, const float* x, float* P) {
    if (batch <= 0 || n <= 0) return;
    if (n == 1) {  // the DFT of one sample is the sample
        square_samples<<<(batch + 255) / 256, 256>>>(batch, x, P);
        return;
    }
    const int m = n / 2;
    const int threads = m / 8 < 32 ? 32 : m / 8;
    const size_t bytes = sizeof(float2) * ((m + (m >> 3)) + (m + 1) / 2 + (m + 1));  // 42 KB at most
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    // only resident blocks: a block that waits for a slot would finish its share of frames last
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, power_fft, threads, bytes);
    const int blocks = min(batch, sms * max(per_sm, 1));
    power_fft<<<blocks, threads, bytes>>>(batch, n, reinterpret_cast<const float2*>(x), P);
}
