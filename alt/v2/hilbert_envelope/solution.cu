// steps: kernel_fusion, shared_memory_tiling, algorithmic_change, bank_conflict_avoidance, loop_unrolling
// One launch, one block per PAIR of signals, the whole pipeline on chip. The analytic signal is
// x + i H(x) with H(x) = IFFT(-i sgn(k) X) real, and that multiplier is one complex-linear operator,
// so for two rows z = x1 + i x2 gives IFFT(-i sgn(k) FFT(z)) = H(x1) + i H(x2): one complex FFT and
// one inverse per two rows (the port and the library run two complex transforms per row), and the
// envelopes are sqrt(x1^2 + H(x1)^2), sqrt(x2^2 + H(x2)^2) from the inputs kept in registers.
// At n = 4096 = 16^3 each transform is three radix-16 passes: a thread holds 16 elements and runs
// a 16-point DFT in registers (unrolled, constant twiddles), the inter-pass twiddles come from one
// sincospif and a chain of products, and two shared-memory exchanges per transform (padded layouts
// that no warp access conflicts on) carry the data between passes. The forward transform's output
// order is the inverse's input order, so the spectral multiply happens in registers; the inverse
// applies the adjoint of each forward step in reverse, ending in the layout the inputs were read in
// (coalesced loads and stores, 16 per thread). Other n (tests only: n <= 4096, a power of two) take
// a general radix-2 kernel per row: forward decimation in time, the one-sided weights, inverse
// decimation in frequency, three stages per barrier, shared twiddle table.
__device__ __forceinline__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__device__ __forceinline__ int reverse_bits(int i, int logn) { return logn ? (int)(__brev(i) >> (32 - logn)) : 0; }
__device__ __forceinline__ int padded(int i) { return i + (i >> 3); }

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


// One radix-2 stage of span HALF over 16 registers (decimation in time); a template, so that every
// loop has constant bounds and unrolls to constant indices (registers, not a local array)
template <bool INV, int HALF>
__device__ __forceinline__ void radix2_stage(float2 (&u)[16]) {
    constexpr float kc[8] = {1.0f, 0.92387953251128674f, 0.70710678118654752f, 0.38268343236508977f,
                             0.0f, -0.38268343236508977f, -0.70710678118654752f, -0.92387953251128674f};
    constexpr float ks[8] = {0.0f, 0.38268343236508977f, 0.70710678118654752f, 0.92387953251128674f,
                             1.0f, 0.92387953251128674f, 0.70710678118654752f, 0.38268343236508977f};
#pragma unroll
    for (int g = 0; g < 16; g += 2 * HALF) {
#pragma unroll
        for (int j = 0; j < HALF; ++j) {
            const int e = j * (8 / HALF);  // W_(2 HALF)^j = W_16^e
            float2 t = u[g + j + HALF];
            if (e == 4) {
                t = INV ? make_float2(-t.y, t.x) : make_float2(t.y, -t.x);  // times +i or -i
            } else if (e != 0) {
                const float c = kc[e], s = INV ? ks[e] : -ks[e];
                t = make_float2(t.x * c - t.y * s, t.x * s + t.y * c);
            }
            const float2 a = u[g + j];
            u[g + j] = make_float2(a.x + t.x, a.y + t.y);
            u[g + j + HALF] = make_float2(a.x - t.x, a.y - t.y);
        }
    }
}

// 16-point DFT in registers, natural order in and out (the bit reversal is a renaming; the trivial
// twiddles are no multiply)
template <bool INV>
__device__ __forceinline__ void dft16(float2 (&v)[16]) {
    float2 u[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) u[i] = v[((i & 1) << 3) | ((i & 2) << 1) | ((i & 4) >> 1) | ((i & 8) >> 3)];
    radix2_stage<INV, 1>(u);
    radix2_stage<INV, 2>(u);
    radix2_stage<INV, 4>(u);
    radix2_stage<INV, 8>(u);
#pragma unroll
    for (int i = 0; i < 16; ++i) v[i] = u[i];
}

// exp(i pi h): W_N^e is unit(-2e / N), exact arguments for N a power of two
__device__ __forceinline__ float2 unit(float h) {
    float s, c;
    sincospif(h, &s, &c);
    return make_float2(c, s);
}

// v[i] *= start * step^i; the powers by repeated products (15 at most: ~1e-6 relative, far inside
// the tolerance)
__device__ __forceinline__ void twiddle(float2 (&v)[16], float2 start, float2 step) {
    float2 w = start;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        v[i] = cmul(v[i], w);
        w = cmul(w, step);
    }
}
__device__ __forceinline__ void twiddle(float2 (&v)[16], float2 step) {
    float2 w = step;
#pragma unroll
    for (int i = 1; i < 16; ++i) {
        v[i] = cmul(v[i], w);
        w = cmul(w, step);
    }
}

// Exchange layouts (checked for bank conflicts over every warp of every read and write: none).
// Between stages 1 and 2: element (k0, m); between stages 2 and 3: element (c, k0, k1).
__device__ __forceinline__ int slot1(int k0, int m) {
    const int e = k0 * 256 + m;
    return e + (e >> 7);
}
__device__ __forceinline__ int slot2(int c, int k0, int k1) {
    const int e = k1 * 256 + c * 16 + k0;
    return e + (e >> 8) * 16;
}
constexpr int kSlots = 4096 + 15 * 16;  // the larger of the two padded layouts

// One block per pair of rows (x1, x2): z = x1 + i x2, Z = FFT(z), w = IFFT(-i sgn(k) Z) = H(x1) + i H(x2)
// since the Hilbert multiplier is the same complex-linear operator on both, n = 4096 = 16^3 as three
// radix-16 passes each way. Thread t: stage 1 m = t (t = 16 b + c), stage 2 (c, k0) = (t >> 4, t & 15),
// stage 3 (k0, k1) = (t & 15, t >> 4); frequency k = k0 + 16 k1 + 256 k2.
__global__ void __launch_bounds__(256, 2) hilbert_pairs_4096(int batch, const float* __restrict__ x, float* __restrict__ env) {
    constexpr int n = 4096;
    __shared__ float re[kSlots], im[kSlots];
    const int t = threadIdx.x;
    const long long row = 2LL * blockIdx.x;
    const bool second = row + 1 < batch;  // an odd batch pairs its last row with zeros
    const float* x1 = x + row * n;
    const float* x2 = second ? x1 + n : x1;
    float2 in[16], v[16];
#pragma unroll
    for (int a = 0; a < 16; ++a) {
        in[a] = make_float2(__ldg(x1 + 256 * a + t), second ? __ldg(x2 + 256 * a + t) : 0.0f);
        v[a] = in[a];
    }
    // forward stage 1: over a (spans 256), then W_256^(b k0)
    dft16<false>(v);
    twiddle(v, unit(-(float)(t >> 4) / 128.0f));
#pragma unroll
    for (int k0 = 0; k0 < 16; ++k0) re[slot1(k0, t)] = v[k0].x, im[slot1(k0, t)] = v[k0].y;
    __syncthreads();
    // forward stage 2: over b, then W_n^(c (k0 + 16 k1))
    const int c = t >> 4, k0 = t & 15;
#pragma unroll
    for (int b = 0; b < 16; ++b) v[b] = make_float2(re[slot1(k0, 16 * b + c)], im[slot1(k0, 16 * b + c)]);
    dft16<false>(v);
    twiddle(v, unit(-(float)(c * k0) / 2048.0f), unit(-(float)c / 128.0f));
    __syncthreads();
#pragma unroll
    for (int k1 = 0; k1 < 16; ++k1) re[slot2(c, k0, k1)] = v[k1].x, im[slot2(c, k0, k1)] = v[k1].y;
    __syncthreads();
    // forward stage 3: over c, giving Z at k = f0 + 16 f1 + 256 k2
    const int f0 = t & 15, f1 = t >> 4;
#pragma unroll
    for (int j = 0; j < 16; ++j) v[j] = make_float2(re[slot2(j, f0, f1)], im[slot2(j, f0, f1)]);
    dft16<false>(v);
    // -i sgn(k) / n: DC and Nyquist (k2 = 0 or 8 with f0 = f1 = 0) to zero, the first half times
    // -i/n, the second +i/n
#pragma unroll
    for (int k2 = 0; k2 < 16; ++k2) {
        const bool edge = (f0 | f1) == 0 && (k2 & 7) == 0;
        const float s = edge ? 0.0f : (k2 < 8 ? 1.0f / n : -1.0f / n);
        v[k2] = make_float2(s * v[k2].y, -s * v[k2].x);
    }
    // inverse: the adjoint of each forward step, in reverse order (conjugate DFTs and twiddles)
    dft16<true>(v);
    twiddle(v, unit((float)(f0 + 16 * f1) / 2048.0f));
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 16; ++j) re[slot2(j, f0, f1)] = v[j].x, im[slot2(j, f0, f1)] = v[j].y;
    __syncthreads();
#pragma unroll
    for (int k1 = 0; k1 < 16; ++k1) v[k1] = make_float2(re[slot2(c, k0, k1)], im[slot2(c, k0, k1)]);
    dft16<true>(v);
    twiddle(v, unit((float)k0 / 128.0f));
    __syncthreads();
#pragma unroll
    for (int b = 0; b < 16; ++b) re[slot1(k0, 16 * b + c)] = v[b].x, im[slot1(k0, 16 * b + c)] = v[b].y;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 16; ++j) v[j] = make_float2(re[slot1(j, t)], im[slot1(j, t)]);
    dft16<true>(v);  // H(x1) + i H(x2) at 256 a + t
    float* e1 = env + row * n;
#pragma unroll
    for (int a = 0; a < 16; ++a) {
        e1[256 * a + t] = sqrtf(in[a].x * in[a].x + v[a].x * v[a].x);
        if (second) e1[n + 256 * a + t] = sqrtf(in[a].y * in[a].y + v[a].y * v[a].y);
    }
}

void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    (void)work;
    if (batch <= 0 || n <= 0) return;
    if (n == 4096) {
        hilbert_pairs_4096<<<(batch + 1) / 2, 256>>>(batch, x, env);
        return;
    }
    int logn = 0;
    while ((1 << logn) < n) ++logn;
    const int threads = n / 8 >= 32 ? n / 8 : 32;  // n < 4096 here: at most 256
    const size_t shared = (size_t)(n + n / 8 + n / 2) * sizeof(float2);
    if (shared > 48 * 1024) cudaFuncSetAttribute(hilbert_block, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
    hilbert_block<<<batch, threads, shared>>>(n, logn, x, env);
}
