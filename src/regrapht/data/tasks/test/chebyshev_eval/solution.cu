// steps: thread_coarsening, vectorized_access
// Each thread evaluates four consecutive points (one 16-byte load and store), so one coefficient
// fetch feeds four independent Clenshaw chains: the loop is almost pure FFMA/FADD with 4-way ILP.
// The block stages the coefficients once in shared memory, zero-padded to a multiple of four, and
// reads them back as broadcast float4s: one LDS.128 per four terms instead of one LDG per term.
#include <cstdint>

constexpr int kThreads = 256;
constexpr int kSmemMaxTerms = 8192;  // 32 KiB of padded coefficients; longer series read global memory

// Clenshaw step, written exactly as the reference so the rounding matches it.
__device__ __forceinline__ void clenshaw_step(float c, float two_t, float& b1, float& b2) {
    const float b0 = c + two_t * b1 - b2;
    b2 = b1;
    b1 = b0;
}

template <bool kSmem>
__global__ void __launch_bounds__(kThreads) chebyshev_x4_kernel(int n, int terms, float lo, float hi,
                                                                const float* __restrict__ coeffs,
                                                                const float* __restrict__ x,
                                                                float* __restrict__ fx, bool aligned) {
    extern __shared__ float4 s_coef4[];
    const int nterms = terms > 0 ? terms : 1;  // the reference reads coeffs[0] even for an empty series
    const int groups4 = (nterms + 3) >> 2;      // padded length / 4
    if (kSmem) {
        float* s_coef = reinterpret_cast<float*>(s_coef4);
        for (int k = threadIdx.x; k < groups4 * 4; k += kThreads) s_coef[k] = k < nterms ? __ldg(coeffs + k) : 0.0f;
        __syncthreads();
    }

    const long long first = (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) * 4;
    if (first >= n) return;
    const bool full = first + 4 <= n;

    float xv[4];
    if (aligned && full) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(x + first));
        xv[0] = v.x; xv[1] = v.y; xv[2] = v.z; xv[3] = v.w;
    } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) xv[j] = first + j < n ? __ldg(x + first + j) : 0.0f;
    }

    float two_t[4], b1[4], b2[4];
    const float den = hi - lo;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        two_t[j] = 2.0f * ((2.0f * xv[j] - lo - hi) / den);
        b1[j] = 0.0f;
        b2[j] = 0.0f;
    }

    // Terms from the padded top down to 4, four at a time; zero padding leaves b1 = b2 = 0 exactly.
    for (int g = groups4 - 1; g >= 1; --g) {
        float4 c;
        if (kSmem) {
            c = s_coef4[g];
        } else {
            const int k = 4 * g;
            c.x = __ldg(coeffs + k);
            c.y = k + 1 < nterms ? __ldg(coeffs + k + 1) : 0.0f;
            c.z = k + 2 < nterms ? __ldg(coeffs + k + 2) : 0.0f;
            c.w = k + 3 < nterms ? __ldg(coeffs + k + 3) : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            clenshaw_step(c.w, two_t[j], b1[j], b2[j]);
            clenshaw_step(c.z, two_t[j], b1[j], b2[j]);
            clenshaw_step(c.y, two_t[j], b1[j], b2[j]);
            clenshaw_step(c.x, two_t[j], b1[j], b2[j]);
        }
    }
    float4 c0;
    if (kSmem) {
        c0 = s_coef4[0];
    } else {
        c0.x = __ldg(coeffs);
        c0.y = 1 < nterms ? __ldg(coeffs + 1) : 0.0f;
        c0.z = 2 < nterms ? __ldg(coeffs + 2) : 0.0f;
        c0.w = 3 < nterms ? __ldg(coeffs + 3) : 0.0f;
    }
    float out[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        clenshaw_step(c0.w, two_t[j], b1[j], b2[j]);
        clenshaw_step(c0.z, two_t[j], b1[j], b2[j]);
        clenshaw_step(c0.y, two_t[j], b1[j], b2[j]);
        const float t = 0.5f * two_t[j];  // exact: two_t = 2 * t
        out[j] = c0.x + t * b1[j] - b2[j];
    }

    if (aligned && full) {
        *reinterpret_cast<float4*>(fx + first) = make_float4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (first + j < n) fx[first + j] = out[j];
    }
}

void chebyshev_eval(int n, int terms, float lo, float hi, const float* coeffs, const float* x, float* fx) {
    if (n <= 0) return;
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(x) | reinterpret_cast<std::uintptr_t>(fx)) & 15) == 0;
    const long long groups = (static_cast<long long>(n) + 3) / 4;
    const unsigned blocks = static_cast<unsigned>((groups + kThreads - 1) / kThreads);
    const int nterms = terms > 0 ? terms : 1;
    if (nterms <= kSmemMaxTerms) {
        const size_t smem = static_cast<size_t>((nterms + 3) / 4) * sizeof(float4);
        chebyshev_x4_kernel<true><<<blocks, kThreads, smem>>>(n, terms, lo, hi, coeffs, x, fx, aligned);
    } else {
        chebyshev_x4_kernel<false><<<blocks, kThreads>>>(n, terms, lo, hi, coeffs, x, fx, aligned);
    }
}
