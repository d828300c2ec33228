// steps: parallelize, work_decomposition, shared_memory_tiling, memory_coalescing, warp_shuffle_reduction
// One warp per sequence, lane j owns state j: the previous step's scores are broadcast lane to lane
// with shuffles, the model tables sit in shared memory, observations are read 32 at a time by the
// warp, back-pointers are stored step-major so each step writes one contiguous run, and the final
// argmax is a shuffle reduction (ties to the smallest state, as in the reference).
constexpr int kWarps = 4;

__global__ void viterbi_warp(int sequences, int length, int states, int symbols, const unsigned char* obs,
                             const float* init_logp, const float* trans_logp, const float* emit_logp,
                             signed char* back, float* best_logp, signed char* path) {
    extern __shared__ float tables[];
    float* trans_s = tables;                    // states * states
    float* emit_s = tables + states * states;  // states * symbols
    for (int k = threadIdx.x; k < states * states; k += blockDim.x) trans_s[k] = trans_logp[k];
    for (int k = threadIdx.x; k < states * symbols; k += blockDim.x) emit_s[k] = emit_logp[k];
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int s = blockIdx.x * kWarps + (threadIdx.x >> 5);
    if (s >= sequences) return;  // whole warps leave together
    const unsigned full = 0xffffffffu;
    const bool active = lane < states;
    const int j = active ? lane : states - 1;
    const unsigned char* o = obs + static_cast<long long>(s) * length;

    int chunk = o[min(lane, length - 1)];
    float score = init_logp[j] + emit_s[j * symbols + __shfl_sync(full, chunk, 0)];
    for (int t = 1; t < length; ++t) {
        if ((t & 31) == 0) chunk = o[min(t + lane, length - 1)];
        const int sym = __shfl_sync(full, chunk, t & 31);
        float best = __shfl_sync(full, score, 0) + trans_s[j];
        int arg = 0;
        for (int i = 1; i < states; ++i) {
            float cand = __shfl_sync(full, score, i) + trans_s[i * states + j];
            if (cand > best) {
                best = cand;
                arg = i;
            }
        }
        score = best + emit_s[j * symbols + sym];
        if (active) back[(static_cast<long long>(t) * sequences + s) * states + lane] = static_cast<signed char>(arg);
    }

    float v = active ? score : -INFINITY;
    int idx = active ? lane : 1 << 30;
    for (int off = 16; off > 0; off >>= 1) {
        float ov = __shfl_xor_sync(full, v, off);
        int oi = __shfl_xor_sync(full, idx, off);
        if (ov > v || (ov == v && oi < idx)) {
            v = ov;
            idx = oi;
        }
    }
    __syncwarp();  // make every lane's back-pointers visible to lane 0
    if (lane == 0) {
        best_logp[s] = v;
        signed char* p = path + static_cast<long long>(s) * length;
        int state = idx;
        p[length - 1] = static_cast<signed char>(state);
        for (int t = length - 1; t > 0; --t) {
            state = back[(static_cast<long long>(t) * sequences + s) * states + state];
            p[t - 1] = static_cast<signed char>(state);
        }
    }
}

void viterbi_batch(int sequences, int length, int states, int symbols, const unsigned char* obs,
                   const float* init_logp, const float* trans_logp, const float* emit_logp, float* best_logp,
                   signed char* path) {
    if (sequences <= 0 || length <= 0) return;
    static signed char* back = nullptr;
    static long long held = 0;
    long long need = static_cast<long long>(sequences) * length * states;
    if (need > held) {
        if (back) cudaFree(back);
        cudaMalloc(&back, need);
        held = need;
    }
    size_t shared = static_cast<size_t>(states) * (states + symbols) * sizeof(float);
    if (shared > 48 * 1024)
        cudaFuncSetAttribute(viterbi_warp, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
    int blocks = (sequences + kWarps - 1) / kWarps;
    viterbi_warp<<<blocks, 32 * kWarps, shared>>>(sequences, length, states, symbols, obs, init_logp, trans_logp,
                                                  emit_logp, back, best_logp, path);
}
