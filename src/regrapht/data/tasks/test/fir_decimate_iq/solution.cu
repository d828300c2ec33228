// steps: parallelize, constant_memory, shared_memory_tiling, data_layout_transform
// The taps live in constant memory (every thread reads the same tap at once: a broadcast). A block of
// BLOCK outputs stages its input span in shared memory in polyphase order, P[p][i] = sample(i*decim + p),
// so output t reads P[k % decim][t + k / decim]: consecutive threads touch consecutive float2 slots
// instead of slots decim apart (no bank conflicts), and each input sample crosses DRAM once.
constexpr int BLOCK = 256;
constexpr int MAX_TAPS = 8192;
constexpr size_t MAX_SMEM = 160 * 1024;
__constant__ float c_taps[MAX_TAPS];

__global__ void __launch_bounds__(BLOCK) fir_polyphase(int n, int taps, int decim, int m_out,
                                                        const float2* __restrict__ iq, float2* __restrict__ out) {
    extern __shared__ float2 phases[];  // decim rows of (BLOCK + q_count) samples
    const int q_count = (taps + decim - 1) / decim;
    const int row = BLOCK + q_count;
    const long long m0 = static_cast<long long>(blockIdx.x) * BLOCK;
    const long long s0 = m0 * decim;
    const int span = decim * row;
    for (int s = threadIdx.x; s < span; s += BLOCK) {
        long long g = s0 + s;
        float2 v = (g < n) ? iq[g] : make_float2(0.0f, 0.0f);
        int q = s / decim, p = s - q * decim;
        phases[p * row + q] = v;
    }
    __syncthreads();
    const long long m = m0 + threadIdx.x;
    if (m >= m_out) return;
    float acc_i = 0.0f, acc_q = 0.0f;
    for (int q = 0, k = 0; q < q_count; ++q) {
        for (int p = 0; p < decim && k < taps; ++p, ++k) {
            float2 v = phases[p * row + threadIdx.x + q];
            float w = c_taps[k];
            acc_i += w * v.x;
            acc_q += w * v.y;
        }
    }
    out[m] = make_float2(acc_i, acc_q);
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
    const size_t smem = static_cast<size_t>(decim) * (BLOCK + q_count) * sizeof(float2);
    const int blocks = (m_out + BLOCK - 1) / BLOCK;
    if (taps > MAX_TAPS || smem > MAX_SMEM) {
        fir_direct<<<blocks, BLOCK>>>(taps, decim, m_out, in2, h, out2);
        return;
    }
    cudaMemcpyToSymbol(c_taps, h, taps * sizeof(float), 0, cudaMemcpyDeviceToDevice);
    if (smem > 48 * 1024)
        cudaFuncSetAttribute(fir_polyphase, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    fir_polyphase<<<blocks, BLOCK, smem>>>(n, taps, decim, m_out, in2, out2);
}
