// One thread per sequence runs the reference recurrence; scores live in per-thread arrays and the
// back-pointers in a global scratch table (one slice per sequence).
constexpr int kMaxStates = 32;

__global__ void viterbi_kernel(int sequences, int length, int states, int symbols, const unsigned char* obs,
                               const float* init_logp, const float* trans_logp, const float* emit_logp,
                               signed char* back_all, float* best_logp, signed char* path) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= sequences) return;
    float score[kMaxStates], next[kMaxStates];
    signed char* back = back_all + static_cast<long long>(s) * length * states;
    const unsigned char* o = obs + static_cast<long long>(s) * length;
    for (int j = 0; j < states; ++j) score[j] = init_logp[j] + emit_logp[j * symbols + o[0]];
    for (int t = 1; t < length; ++t) {
        for (int j = 0; j < states; ++j) {
            float best = score[0] + trans_logp[j];
            int arg = 0;
            for (int i = 1; i < states; ++i) {
                float cand = score[i] + trans_logp[i * states + j];
                if (cand > best) {
                    best = cand;
                    arg = i;
                }
            }
            next[j] = best + emit_logp[j * symbols + o[t]];
            back[static_cast<long long>(t) * states + j] = static_cast<signed char>(arg);
        }
        for (int j = 0; j < states; ++j) score[j] = next[j];
    }
    int last = 0;
    for (int j = 1; j < states; ++j)
        if (score[j] > score[last]) last = j;
    best_logp[s] = score[last];
    signed char* p = path + static_cast<long long>(s) * length;
    p[length - 1] = static_cast<signed char>(last);
    for (int t = length - 1; t > 0; --t) p[t - 1] = back[static_cast<long long>(t) * states + p[t]];
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
    viterbi_kernel<<<(sequences + 127) / 128, 128>>>(sequences, length, states, symbols, obs, init_logp, trans_logp,
                                                     emit_logp, back, best_logp, path);
}
