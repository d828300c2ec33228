__global__ void embedding_lookup_kernel(int ntok, int dim, int seqlen, float scale, const int* ids,
                                        const float* table, const float* pos, float* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntok) return;
    const float* word = table + (long long)ids[t] * dim;
    const float* where = pos + (long long)(t % seqlen) * dim;
    float* dst = out + (long long)t * dim;
    for (int d = 0; d < dim; ++d) dst[d] = scale * word[d] + where[d];
}

void embedding_lookup(int ntok, int vocab, int dim, int seqlen, float scale, const int* ids, const float* table,
                      const float* pos, float* out) {
    if (ntok <= 0) return;
    embedding_lookup_kernel<<<(ntok + 127) / 128, 128>>>(ntok, dim, seqlen, scale, ids, table, pos, out);
}
