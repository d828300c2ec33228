// steps: algorithmic_change, shared_memory_tiling, vectorized_access, read_only_cache, persistent_kernel
// The real frame of n samples is read as n/2 complex values z[t] = x[2t] + i x[2t+1] (one float2
// load each, stored bit-reversed in shared memory), transformed by an n/2-point radix-2 FFT in
// shared memory with a per-block twiddle table, and split into the real signal's spectrum:
// X[k] = E[k] + W_n^k O[k] with E, O from Z[k] and conj(Z[n/2 - k]). A persistent block loops over
// frames and loads the next frame into registers while it transforms the current one.

constexpr int THREADS = 256;
constexpr int MAX_M = 2048;                // n <= 4096
constexpr int PER_THREAD = MAX_M / THREADS;  // complex values a thread loads per frame

__global__ void __launch_bounds__(THREADS) power_fft(int batch, int n, const float2* __restrict__ x, float* __restrict__ P) {
    __shared__ float2 z[MAX_M];
    __shared__ float2 tw[MAX_M / 2];
    const int m = n / 2, bits = __ffs(m) - 1, bins = m + 1;
    for (int j = threadIdx.x; j < m / 2; j += blockDim.x) {
        float s, c;
        sincospif(-2.0f * j / m, &s, &c);  // W_m^j
        tw[j] = make_float2(c, s);
    }
    float2 next[PER_THREAD];
    int frame = blockIdx.x;
    if (frame < batch) {
#pragma unroll
        for (int r = 0; r < PER_THREAD; ++r) {
            const int t = threadIdx.x + r * THREADS;
            if (t < m) next[r] = __ldg(x + (long long)frame * m + t);
        }
    }
    for (; frame < batch; frame += gridDim.x) {
        __syncthreads();  // the previous frame's spectrum is read out of z
#pragma unroll
        for (int r = 0; r < PER_THREAD; ++r) {
            const int t = threadIdx.x + r * THREADS;
            if (t < m) z[bits == 0 ? 0 : __brev(t) >> (32 - bits)] = next[r];
        }
        const int following = frame + gridDim.x;
        if (following < batch) {
#pragma unroll
            for (int r = 0; r < PER_THREAD; ++r) {
                const int t = threadIdx.x + r * THREADS;
                if (t < m) next[r] = __ldg(x + (long long)following * m + t);
            }
        }
        for (int half = 1, stride = m / 2; half < m; half <<= 1, stride >>= 1) {
            __syncthreads();
            for (int q = threadIdx.x; q < m / 2; q += THREADS) {
                const int j = q & (half - 1);
                const int a = ((q - j) << 1) + j, b = a + half;
                const float2 w = tw[j * stride];
                const float2 u = z[a], v = z[b];
                const float tr = w.x * v.x - w.y * v.y, ti = w.x * v.y + w.y * v.x;
                z[a] = make_float2(u.x + tr, u.y + ti);
                z[b] = make_float2(u.x - tr, u.y - ti);
            }
        }
        __syncthreads();
        float* out = P + (long long)frame * bins;
        for (int k = threadIdx.x; k < bins; k += THREADS) {
            const float2 a = z[k == m ? 0 : k], b = z[k == 0 ? 0 : m - k];
            const float er = 0.5f * (a.x + b.x), ei = 0.5f * (a.y - b.y);  // E[k]
            const float orr = 0.5f * (a.y + b.y), oi = -0.5f * (a.x - b.x);  // O[k]
            float s, c;
            sincospif(-(float)k / m, &s, &c);  // W_n^k
            const float xr = er + c * orr - s * oi, xi = ei + c * oi + s * orr;
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
    int device = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    // only resident blocks: a block that waits for a slot would finish its share of frames last
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, power_fft, THREADS, 0);
    const int blocks = min(batch, sms * max(per_sm, 1));
    power_fft<<<blocks, THREADS>>>(batch, n, reinterpret_cast<const float2*>(x), P);
}
