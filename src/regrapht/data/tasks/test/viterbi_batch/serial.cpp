#include <cstddef>
#include <vector>

void viterbi_batch(int sequences, int length, int states, int symbols, const unsigned char* obs,
                   const float* init_logp, const float* trans_logp, const float* emit_logp, float* best_logp,
                   signed char* path) {
    std::vector<float> score(states), next(states);
    std::vector<signed char> back(static_cast<std::size_t>(length) * states);
    for (int s = 0; s < sequences; ++s) {
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
                back[static_cast<std::size_t>(t) * states + j] = static_cast<signed char>(arg);
            }
            score.swap(next);
        }
        int last = 0;
        for (int j = 1; j < states; ++j)
            if (score[j] > score[last]) last = j;
        best_logp[s] = score[last];
        signed char* p = path + static_cast<long long>(s) * length;
        p[length - 1] = static_cast<signed char>(last);
        for (int t = length - 1; t > 0; --t) p[t - 1] = back[static_cast<std::size_t>(t) * states + p[t]];
    }
}
