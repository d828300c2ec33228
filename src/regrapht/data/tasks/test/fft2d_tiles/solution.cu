// steps: algorithmic_change, shared_memory_tiling, bank_conflict_avoidance, vectorized_access, memory_coalescing, kernel_fusion
// Both passes of a tile's 2D FFT in one block, through shared memory: the tile is read with
// coalesced 16-byte loads and scattered to bit-reversed rows and columns, then the log2(s) radix-2
// stages along the rows and the log2(s) along the columns run three at a time: a thread holds the
// eight elements that three consecutive stages combine among themselves in registers (radix-8
// groups, the arithmetic of the radix-2 stages unchanged), so a 64 x 64 tile takes four trips
// through shared memory and four barriers instead of twelve. Consecutive threads take consecutive
// rows (or columns): with rows padded by one element their accesses hit distinct banks, and they
// share the twiddles (a broadcast from a per-block table). The tile leaves in natural order with
// 16-byte stores; the intermediate row transform never touches global memory.
#include <cuComplex.h>

constexpr int THREADS = 256;
constexpr int MAX_S = 64;
constexpr int PITCH = MAX_S + 1;

__device__ __forceinline__ int reverse_bits(int v, int bits) { return bits == 0 ? 0 : (int)(__brev((unsigned)v) >> (32 - bits)); }

__device__ __forceinline__ void butterfly(float2* z, int a, int b, float2 w) {
    const float2 u = z[a], v = z[b];
    const float tr = w.x * v.x - w.y * v.y, ti = w.x * v.y + w.y * v.x;
    z[a] = make_float2(u.x + tr, u.y + ti);
    z[b] = make_float2(u.x - tr, u.y - ti);
}

// R consecutive radix-2 stages (half, 2 half, ..., 2^(R-1) half) of every row (ROWS) or column, fused
// in registers: a thread loads the 2^R elements a + m half that those stages combine only among
// themselves, applies the same butterflies and twiddles the R separate stages would, and stores
// them back. Consecutive threads take consecutive rows (or columns), so with the padded pitch their
// 8-byte accesses fall in distinct banks, and they share k, hence the twiddle (a broadcast).
template <int R, bool ROWS>
__device__ __forceinline__ void fused_stages(float2* z, const float2* tw, int s, int lg, int half) {
    constexpr int M = 1 << R;
    const int tasks = (s * s) >> R;
    for (int q = threadIdx.x; q < tasks; q += THREADS) {
        const int line = q & (s - 1), k = q >> lg;
        const int j = k & (half - 1), a = ((k - j) << R) + j;
        float2* p = ROWS ? z + line * PITCH + a : z + line + a * PITCH;
        const int step = ROWS ? half : half * PITCH;
        float2 v[M];
#pragma unroll
        for (int m = 0; m < M; ++m) v[m] = p[m * step];
#pragma unroll
        for (int t = 0; t < R; ++t) {
            const int stride = s / (2 * (half << t));  // twiddle W_{2h}^i = tw[i * s / (2h)], h = half 2^t
#pragma unroll
            for (int m = 0; m < M; ++m) {
                if ((m >> t) & 1) continue;
                butterfly(v, m, m + (1 << t), tw[(j + (m & ((1 << t) - 1)) * half) * stride]);
            }
        }
#pragma unroll
        for (int m = 0; m < M; ++m) p[m * step] = v[m];
    }
}

__global__ void __launch_bounds__(THREADS) tile_fft2d(int s, int lg, const float2* __restrict__ x, float2* __restrict__ X) {
    __shared__ float2 z[MAX_S * PITCH];
    __shared__ float2 tw[MAX_S / 2];
    const long long base = (long long)blockIdx.x * s * s;
    const int area = s * s, half_s = s / 2;
    for (int j = threadIdx.x; j < half_s; j += THREADS) {
        float sn, cs;
        sincospif(-2.0f * j / s, &sn, &cs);
        tw[j] = make_float2(cs, sn);
    }
    if (area >= 2) {
        const float4* x4 = reinterpret_cast<const float4*>(x + base);
        for (int e2 = threadIdx.x; e2 < area / 2; e2 += THREADS) {
            const float4 v = __ldg(x4 + e2);
            const int e = 2 * e2, r = e >> lg, c = e & (s - 1);  // c is even, c + 1 is in the same row
            const int rr = reverse_bits(r, lg) * PITCH;
            z[rr + reverse_bits(c, lg)] = make_float2(v.x, v.y);
            z[rr + reverse_bits(c + 1, lg)] = make_float2(v.z, v.w);
        }
    } else if (threadIdx.x == 0) {
        z[0] = x[base];
    }
    for (int half = 1, left = lg; left > 0;) {  // along rows, up to three stages per barrier
        const int r = left < 3 ? left : 3;
        __syncthreads();
        if (r == 3) fused_stages<3, true>(z, tw, s, lg, half);
        else if (r == 2) fused_stages<2, true>(z, tw, s, lg, half);
        else fused_stages<1, true>(z, tw, s, lg, half);
        half <<= r;
        left -= r;
    }
    for (int half = 1, left = lg; left > 0;) {  // along columns
        const int r = left < 3 ? left : 3;
        __syncthreads();
        if (r == 3) fused_stages<3, false>(z, tw, s, lg, half);
        else if (r == 2) fused_stages<2, false>(z, tw, s, lg, half);
        else fused_stages<1, false>(z, tw, s, lg, half);
        half <<= r;
        left -= r;
    }
    __syncthreads();
    if (area >= 2) {
        float4* X4 = reinterpret_cast<float4*>(X + base);
        for (int e2 = threadIdx.x; e2 < area / 2; e2 += THREADS) {
            const int e = 2 * e2, r = e >> lg, c = e & (s - 1);
            const float2 a = z[r * PITCH + c], b = z[r * PITCH + c + 1];
            X4[e2] = make_float4(a.x, a.y, b.x, b.y);
        }
    } else if (threadIdx.x == 0) {
        X[base] = z[0];
    }
}

void fft2d_tiles(int batch, int s, const cuFloatComplex* x, cuFloatComplex* X, float* work) {
    (void)work;
    if (batch <= 0 || s <= 0) return;
    int lg = 0;
    while ((1 << lg) < s) ++lg;
    tile_fft2d<<<batch, THREADS>>>(s, lg, reinterpret_cast<const float2*>(x), reinterpret_cast<float2*>(X));
}
