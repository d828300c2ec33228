// steps: work_decomposition, shared_memory_tiling, memory_coalescing, warp_shuffle_reduction, register_tiling
// S lanes per sequence (S = 16 when states <= 16, else 32), lane j owning state j, so a warp runs
// 32 / S sequences: at the bench's 16 states two per warp, where one sequence per warp left half of
// every warp idle. Each lane holds its column of the transition matrix in registers (S floats, the
// loop over predecessors fully unrolled), the previous step's scores come lane to lane by shuffles
// within the S-lane segment, the emission table sits in shared memory, and observations are read S
// at a time by the segment. Lanes past `states` are padding whose score stays -inf, so they never win
// a maximum (the reference's ties to the smallest index are kept: strict > in ascending order).
// Back-pointers stay in shared memory (S bytes per step and sequence, 16 KB per block at the bench
// size), so the backtrack walks shared memory instead of a 64 MB global table; a length too long for
// shared memory falls back to a global scratch table. The final argmax is a shuffle reduction.
#include <cmath>

constexpr int kWarps = 4;
constexpr int kSharedLimit = 48 * 1024;

template <int S>
__global__ void __launch_bounds__(32 * kWarps)
    viterbi_segments(int sequences, int length, int states, int symbols, const unsigned char* __restrict__ obs,
                     const float* __restrict__ init_logp, const float* __restrict__ trans_logp,
                     const float* __restrict__ emit_logp, signed char* global_back, bool shared_back,
                     float* __restrict__ best_logp, signed char* __restrict__ path) {
    constexpr int G = 32 / S;  // sequences per warp
    extern __shared__ float smem[];
    float* emit_s = smem;  // states * symbols
    for (int k = threadIdx.x; k < states * symbols; k += blockDim.x) emit_s[k] = emit_logp[k];
    __syncthreads();

    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane / S, j = lane % S;
    const int local = warp * G + sub;  // the sequence's slot in the block
    const int first = (blockIdx.x * kWarps + warp) * G;
    if (first >= sequences) return;  // whole warps leave together
    const int s = blockIdx.x * kWarps * G + local;
    const bool live = s < sequences;  // a warp's second sequence may not exist: it still shuffles
    const int sq = live ? s : sequences - 1;
    const bool active = j < states;
    const int jj = active ? j : states - 1;  // table row for padding lanes (their results are unused)
    signed char* back = shared_back ? reinterpret_cast<signed char*>(emit_s + states * symbols) +
                                          static_cast<long long>(local) * length * S
                                    : global_back + static_cast<long long>(live ? s : sequences) * length * S;

    float tcol[S];  // trans(i, j) for this lane's j; 0 for padding predecessors (their score is -inf)
#pragma unroll
    for (int i = 0; i < S; ++i) tcol[i] = i < states && active ? __ldg(trans_logp + i * states + j) : 0.0f;

    const unsigned char* o = obs + static_cast<long long>(sq) * length;
    int chunk = o[min(j, length - 1)];
    const int seg = sub * S;  // the segment's first lane
    const int sym0 = __shfl_sync(full, chunk, seg);  // every lane shuffles, padding lanes too
    float score = active ? __ldg(init_logp + j) + emit_s[jj * symbols + sym0] : -INFINITY;
    for (int t = 1; t < length; ++t) {
        if (t % S == 0) chunk = o[min(t + j, length - 1)];
        const int sym = __shfl_sync(full, chunk, seg + t % S);
        float best = __shfl_sync(full, score, 0, S) + tcol[0];
        int arg = 0;
#pragma unroll
        for (int i = 1; i < S; ++i) {
            const float cand = __shfl_sync(full, score, i, S) + tcol[i];
            if (cand > best) {
                best = cand;
                arg = i;
            }
        }
        score = active ? best + emit_s[jj * symbols + sym] : -INFINITY;
        back[t * S + j] = static_cast<signed char>(arg);
    }

    float v = score;
    int idx = active ? j : 1 << 30;
#pragma unroll
    for (int off = S / 2; off > 0; off >>= 1) {  // xor offsets below S stay inside the segment
        const float ov = __shfl_xor_sync(full, v, off);
        const int oi = __shfl_xor_sync(full, idx, off);
        if (ov > v || (ov == v && oi < idx)) {
            v = ov;
            idx = oi;
        }
    }
    __syncwarp();  // every lane's back-pointers visible to the segment's first lane
    if (j == 0 && live) {
        best_logp[s] = v;
        signed char* p = path + static_cast<long long>(s) * length;
        int state = idx;
        p[length - 1] = static_cast<signed char>(state);
        for (int t = length - 1; t > 0; --t) {
            state = back[t * S + state];
            p[t - 1] = static_cast<signed char>(state);
        }
    }
}

template <int S>
void launch(int sequences, int length, int states, int symbols, const unsigned char* obs, const float* init_logp,
            const float* trans_logp, const float* emit_logp, float* best_logp, signed char* path) {
    constexpr int G = 32 / S;
    const long long tables = static_cast<long long>(states) * symbols * sizeof(float);
    const long long back_bytes = static_cast<long long>(kWarps) * G * length * S;
    const bool shared_back = tables + back_bytes <= kSharedLimit;
    static signed char* back = nullptr;
    static long long held = 0;
    if (!shared_back) {
        // one slice per sequence, and one more for a warp's missing second sequence to write into
        const long long need = static_cast<long long>(sequences + 1) * length * S;
        if (need > held) {
            if (back) cudaFree(back);
            cudaMalloc(&back, need);
            held = need;
        }
    }
    const size_t shared = static_cast<size_t>(tables + (shared_back ? back_bytes : 0));
    if (shared > 48 * 1024)
        cudaFuncSetAttribute(viterbi_segments<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared));
    const int per_block = kWarps * G;
    const int blocks = (sequences + per_block - 1) / per_block;
    viterbi_segments<S><<<blocks, 32 * kWarps, shared>>>(sequences, length, states, symbols, obs, init_logp,
                                                          trans_logp, emit_logp, back, shared_back, best_logp, path);
}

void viterbi_batch(int sequences, int length, int states, int symbols, const unsigned char* obs,
                   const float* init_logp, const float* trans_logp, const float* emit_logp, float* best_logp,
                   signed char* path) {
    if (sequences <= 0 || length <= 0) return;
    if (states <= 16)
        launch<16>(sequences, length, states, symbols, obs, init_logp, trans_logp, emit_logp, best_logp, path);
    else
        launch<32>(sequences, length, states, symbols, obs, init_logp, trans_logp, emit_logp, best_logp, path);
}
