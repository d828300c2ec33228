// steps: algorithmic_change, register_tiling, shared_memory_tiling, vectorized_access, bank_conflict_avoidance
// The real frame of n samples is read as m = n/2 complex values z[t] = x[2t] + i x[2t+1] (one
// float2 load each), transformed by an m-point complex FFT, and split into the real signal's
// spectrum: X[k] = E[k] + W_n^k O[k] with E, O from Z[k] and conj(Z[m - k]).
// At n = 1024 (m = 512 = 8 x 8 x 8, the bench size) 64 threads transform a frame in registers:
// each holds 8 points, runs a radix-8 butterfly on them (three radix-2 stages, no memory), applies
// its twiddles (powers of one sincospif each), and the points change threads through shared memory
// twice (Cooley-Tukey 512 = 8 x 64, 64 = 8 x 8), with rows padded so a half-warp's 8-byte accesses
// hit distinct banks. A frame costs three barriers and three sincospif a thread; the radix-2 kernel
// below (kept for the other sizes) needs log2(m) + 1 barriers, five shared accesses a butterfly
// and a sincospif a bin, and reached 20% of the DRAM floor at the bench size. Four frames share a
// block, each in its own shared buffers.
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

// ---- n = 1024: three radix-8 passes in registers ----
constexpr int R8_FRAMES = 4;     // frames a block, 64 threads each
constexpr int R8_N2 = 64;        // points a row (t2 of 512 = 8 x 64)
constexpr int R8_PAD = 8;        // rows k1 and k1 + 1 start 16 banks apart (8-byte points)
constexpr int R8_ROW = R8_N2 + R8_PAD;

__device__ __forceinline__ float2 cadd(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 csub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
    return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}
__device__ __forceinline__ float2 mul_minus_i(float2 a) { return make_float2(a.y, -a.x); }

// In-place 8-point DFT, v[k] = sum_t v[t] W8^(t k): decimation in frequency, outputs in natural order.
__device__ __forceinline__ void dft8(float2 (&v)[8]) {
    const float r = 0.70710678118654752f;
    const float2 b0 = cadd(v[0], v[4]), b1 = cadd(v[1], v[5]), b2 = cadd(v[2], v[6]), b3 = cadd(v[3], v[7]);
    const float2 d5 = csub(v[1], v[5]), d7 = csub(v[3], v[7]);
    const float2 b4 = csub(v[0], v[4]);
    const float2 b5 = make_float2(r * (d5.x + d5.y), r * (d5.y - d5.x));   // times W8
    const float2 b6 = mul_minus_i(csub(v[2], v[6]));                       // times W8^2 = -i
    const float2 b7 = make_float2(r * (d7.y - d7.x), -r * (d7.x + d7.y));  // times W8^3
    const float2 c0 = cadd(b0, b2), c2 = csub(b0, b2), c1 = cadd(b1, b3), c3 = mul_minus_i(csub(b1, b3));
    const float2 c4 = cadd(b4, b6), c6 = csub(b4, b6), c5 = cadd(b5, b7), c7 = mul_minus_i(csub(b5, b7));
    v[0] = cadd(c0, c1), v[4] = csub(c0, c1), v[2] = cadd(c2, c3), v[6] = csub(c2, c3);
    v[1] = cadd(c4, c5), v[5] = csub(c4, c5), v[3] = cadd(c6, c7), v[7] = csub(c6, c7);
}

// v[j] *= w^j for j = 1..7, w = exp(-i pi a) (powers by products: a few ulp, far inside the tolerance)
__device__ __forceinline__ void twiddle_powers(float2 (&v)[8], float a) {
    float s, c;
    sincospif(-a, &s, &c);
    const float2 w = make_float2(c, s);
    float2 wj = w;
#pragma unroll
    for (int j = 1; j < 8; ++j) {
        v[j] = cmul(v[j], wj);
        wj = cmul(wj, w);
    }
}

__device__ __forceinline__ int zpos(int k) { return k + (k >> 3); }  // padded natural order

__global__ void __launch_bounds__(R8_FRAMES * 64) power_fft1024(int batch, const float2* __restrict__ x, float* __restrict__ P) {
    __shared__ float2 sh[R8_FRAMES][2][8 * R8_ROW];
    const int f = threadIdx.x >> 6, t = threadIdx.x & 63;
    const long long frame = (long long)blockIdx.x * R8_FRAMES + f;
    const bool live = frame < batch;
    float2* A = sh[f][0];
    float2* B = sh[f][1];
    float2 v[8];
    // Pass 1: 512 = 8 (t1) x 64 (t2 = t). An 8-point DFT over t1 gives k1, then W512^(t2 k1).
    const float2* z = x + frame * 512;
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = live ? __ldg(z + t + 64 * j) : make_float2(0.0f, 0.0f);
    dft8(v);
    twiddle_powers(v, t / 256.0f);
#pragma unroll
    for (int k1 = 0; k1 < 8; ++k1) A[k1 * R8_ROW + t] = v[k1];
    __syncthreads();
    // Pass 2: for each k1, the 64-point DFT over t2 = s2 + 8 s1; thread (k1, s2) = (hi, lo) runs
    // the 8-point DFT over s1 (giving q1), then W64^(s2 q1).
    const int hi = t >> 3, lo = t & 7;
#pragma unroll
    for (int s1 = 0; s1 < 8; ++s1) v[s1] = A[hi * R8_ROW + lo + 8 * s1];
    dft8(v);
    twiddle_powers(v, lo / 32.0f);
#pragma unroll
    for (int q1 = 0; q1 < 8; ++q1) B[hi * R8_ROW + q1 * 9 + lo] = v[q1];
    __syncthreads();
    // Pass 3: thread (k1, q1) = (hi, lo) runs the DFT over s2, giving Z[k1 + 8 q1 + 64 q2].
#pragma unroll
    for (int s2 = 0; s2 < 8; ++s2) v[s2] = B[hi * R8_ROW + lo * 9 + s2];
    dft8(v);
#pragma unroll
    for (int q2 = 0; q2 < 8; ++q2) A[zpos(hi + 8 * lo + 64 * q2)] = v[q2];
    __syncthreads();
    if (!live) return;
    // Bins k = t + 64 j from Z[k] and Z[512 - k]; W1024^k = W1024^t W16^j.
    float* out = P + frame * 513;
    const float cj[8] = {1.0f, 0.92387953251128674f, 0.70710678118654752f, 0.38268343236508977f,
                         0.0f, -0.38268343236508977f, -0.70710678118654752f, -0.92387953251128674f};
    const float sj[8] = {0.0f, 0.38268343236508977f, 0.70710678118654752f, 0.92387953251128674f,
                         1.0f, 0.92387953251128674f, 0.70710678118654752f, 0.38268343236508977f};
    float s, c;
    sincospif(-t / 512.0f, &s, &c);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const int k = t + 64 * j;
        const float2 a = A[zpos(k)], b = A[zpos((512 - k) & 511)];
        const float er = 0.5f * (a.x + b.x), ei = 0.5f * (a.y - b.y);  // E[k]
        const float orr = 0.5f * (a.y + b.y), oi = -0.5f * (a.x - b.x);  // O[k]
        const float2 w = cmul(make_float2(c, s), make_float2(cj[j], -sj[j]));
        const float xr = er + w.x * orr - w.y * oi, xi = ei + w.x * oi + w.y * orr;
        out[k] = xr * xr + xi * xi;
    }
    if (t == 0) {
        const float2 a = A[0];
        out[512] = (a.x - a.y) * (a.x - a.y);  // X[m] = E[0] - O[0]
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
    if (n == 1024) {
        power_fft1024<<<(unsigned)((batch + R8_FRAMES - 1) / R8_FRAMES), R8_FRAMES * 64>>>(
            batch, reinterpret_cast<const float2*>(x), P);
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
