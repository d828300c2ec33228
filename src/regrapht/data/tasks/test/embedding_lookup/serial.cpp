void embedding_lookup(int ntok, int vocab, int dim, int seqlen, float scale, const int* ids, const float* table,
                      const float* pos, float* out) {
    for (int t = 0; t < ntok; ++t) {
        const float* word = table + static_cast<long long>(ids[t]) * dim;
        const float* where = pos + static_cast<long long>(t % seqlen) * dim;
        float* dst = out + static_cast<long long>(t) * dim;
        for (int d = 0; d < dim; ++d) dst[d] = scale * word[d] + where[d];
    }
}
