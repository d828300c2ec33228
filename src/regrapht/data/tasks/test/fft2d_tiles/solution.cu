// steps: algorithmic_change, shared_memory_tiling, bank_conflict_avoidance, vectorized_access, memory_coalescing, kernel_fusion
// Both passes of a tile's 2D FFT in one block, through shared memory: the tile is read with
// coalesced 16-byte loads and scattered to bit-reversed rows and columns, log2(s) radix-2 stages
// run along the rows and log2(s) along the columns (the column stages give consecutive threads
// consecutive columns), and the tile leaves in natural order with 16-byte stores. Rows are padded
// by one element against bank conflicts; twiddles come from a per-block table. The intermediate
// row transform never touches global memory.
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
    for (int half = 1; half < s; half <<= 1) {  // along rows
        const int stride = s / (2 * half);
        __syncthreads();
        for (int q = threadIdx.x; q < area / 2; q += THREADS) {
            const int row = q / half_s, k = q % half_s;
            const int j = k & (half - 1), a = ((k - j) << 1) + j;
            butterfly(z + row * PITCH, a, a + half, tw[j * stride]);
        }
    }
    for (int half = 1; half < s; half <<= 1) {  // along columns
        const int stride = s / (2 * half);
        __syncthreads();
        for (int q = threadIdx.x; q < area / 2; q += THREADS) {
            const int col = q & (s - 1), k = q >> lg;
            const int j = k & (half - 1), a = ((k - j) << 1) + j;
            butterfly(z + col, a * PITCH, (a + half) * PITCH, tw[j * stride]);
        }
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
