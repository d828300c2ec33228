// steps: parallelize, constant_memory, shared_memory_tiling, data_layout_transform, register_tiling
// The taps live in constant memory (every thread reads the same tap at once: a broadcast). A block
// stages its input span in shared memory in polyphase order, so that output t's tap k = q*decim + p
// reads phase p's sample t + q, and each input sample crosses DRAM once.
//
// One output per thread read one 8-byte shared word per tap (96 per output at the bench size): the
// shared-memory pipe, not DRAM, bounded that version. Here a thread computes R = 4 consecutive outputs
// t0..t0+3 and, per phase, slides a window of four samples over q: each sample it loads serves all
// four outputs, so a thread reads (q_count + 3) words per phase for 4 outputs instead of 4 * q_count.
// For those window reads to stay conflict-free, each phase row is split again by sample index mod R:
// sample i of phase p sits at p*R*W + (i % R)*W + i / R, so at each step the 32 lanes of a warp
// (t0 = 4*lane) read one sub-row at 32 consecutive columns. Summation order is phase-major rather
// than tap-major: a float sum of taps normal(0, 0.1) times unit samples, far inside the tolerance.
constexpr int BLOCK = 128;
constexpr int R = 4;  // outputs per thread
constexpr int MAX_TAPS = 8192;
constexpr size_t MAX_SMEM = 160 * 1024;
__constant__ float c_taps[MAX_TAPS];

__device__ __forceinline__ float2 fma2(float w, float2 v, float2 acc) {
    return make_float2(fmaf(w, v.x, acc.x), fmaf(w, v.y, acc.y));
}

// local samples per phase a block needs, and the width of one of its R sub-rows
__host__ __device__ __forceinline__ int span_len(int q_count) { return BLOCK * R + q_count - 1; }
__host__ __device__ __forceinline__ int sub_width(int q_count) { return (span_len(q_count) + R - 1) / R; }

__global__ void __launch_bounds__(BLOCK) fir_polyphase(int n, int taps, int decim, int m_out,
                                                        const float2* __restrict__ iq, float2* __restrict__ out) {
    extern __shared__ float2 phases[];  // decim x R sub-rows of W samples
    const int q_count = (taps + decim - 1) / decim;
    const int len = span_len(q_count), W = sub_width(q_count);
    const long long m0 = static_cast<long long>(blockIdx.x) * BLOCK * R;
    const long long s0 = m0 * decim;
    const int span = decim * len;
#pragma unroll 4
    for (int s = threadIdx.x; s < span; s += BLOCK) {
        const long long g = s0 + s;
        const float2 v = (g < n) ? iq[g] : make_float2(0.0f, 0.0f);
        const int i = s / decim, p = s - i * decim;
        phases[(p * R + i % R) * W + i / R] = v;
    }
    __syncthreads();
    const long long t0 = m0 + static_cast<long long>(threadIdx.x) * R;
    if (t0 >= m_out) return;
    float2 acc[R];
#pragma unroll
    for (int j = 0; j < R; ++j) acc[j] = make_float2(0.0f, 0.0f);
    for (int p = 0; p < decim; ++p) {
        const float2* row = phases + p * R * W;
        // win[j] = sample t0 + j + q of this phase (local index threadIdx.x * R + j + q)
        float2 win[R];
#pragma unroll
        for (int j = 0; j < R; ++j) win[j] = row[j * W + threadIdx.x];
#pragma unroll R
        for (int q = 0; q < q_count; ++q) {
            const int k = q * decim + p;
            const float w = k < taps ? c_taps[k] : 0.0f;
#pragma unroll
            for (int j = 0; j < R; ++j) acc[j] = fma2(w, win[j], acc[j]);
#pragma unroll
            for (int j = 0; j < R - 1; ++j) win[j] = win[j + 1];
            // the next sample, local index threadIdx.x * R + R + q: sub-row q % R, column threadIdx.x + 1 + q / R
            if (q + 1 < q_count) win[R - 1] = row[(q % R) * W + threadIdx.x + 1 + q / R];
        }
    }
#pragma unroll
    for (int j = 0; j < R; ++j)
        if (t0 + j < m_out) out[t0 + j] = acc[j];
}

// Fallback for filters whose taps or tiles do not fit: direct form from global memory.
__global__ void fir_direct(int taps, int decim, int m_out, const float2* __restrict__ iq, const float* __restrict__ h,
                           float2* __restrict__ out) {
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= m_out) return;
    const float2* window = iq + static_cast<long long>(m) * decim;
    float acc_i = 0.0f, acc_q = 0.0f;
    for (int k = 0; k < taps; ++k) {
        float2 v = window[k];
        acc_i += h[k] * v.x;
        acc_q += h[k] * v.y;
    }
    out[m] = make_float2(acc_i, acc_q);
}

void fir_decimate_iq(int n, int taps, int decim, int m_out, const float* iq, const float* h, float* out) {
    if (m_out <= 0) return;
    const float2* in2 = reinterpret_cast<const float2*>(iq);
    float2* out2 = reinterpret_cast<float2*>(out);
    const int q_count = (taps + decim - 1) / decim;
    const size_t smem = static_cast<size_t>(decim) * R * sub_width(q_count) * sizeof(float2);
    if (taps > MAX_TAPS || smem > MAX_SMEM) {
        fir_direct<<<(m_out + 255) / 256, 256>>>(taps, decim, m_out, in2, h, out2);
        return;
    }
    cudaMemcpyToSymbol(c_taps, h, taps * sizeof(float), 0, cudaMemcpyDeviceToDevice);
    static size_t opted = 48 * 1024;
    if (smem > opted) {
        cudaFuncSetAttribute(fir_polyphase, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        opted = smem;
    }
    const int per_block = BLOCK * R;
    fir_polyphase<<<(m_out + per_block - 1) / per_block, BLOCK, smem>>>(n, taps, decim, m_out, in2, out2);
}
