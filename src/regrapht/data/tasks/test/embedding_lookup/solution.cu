// steps: parallelize, memory_coalescing
// The naive kernel gives each thread a whole row, so a warp's accesses are dim floats apart.
// Here a block row of threads shares one token and lanes walk its embedding dimension, so every
// load of the table row, the positional row and every store is a contiguous 128-byte sweep.

__global__ void embedding_lookup_coalesced(int ntok, int dim, int seqlen, float scale, const int* __restrict__ ids,
                                           const float* __restrict__ table, const float* __restrict__ pos,
                                           float* __restrict__ out) {
    int t = blockIdx.x * blockDim.y + threadIdx.y;
    if (t >= ntok) return;
    const float* word = table + (long long)ids[t] * dim;
    const float* where = pos + (long long)(t % seqlen) * dim;
    float* dst = out + (long long)t * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) dst[d] = scale * word[d] + where[d];
}

void embedding_lookup(int ntok, int vocab, int dim, int seqlen, float scale, const int* ids, const float* table,
                      const float* pos, float* out) {
    if (ntok <= 0) return;
    // 128 lanes per token for wide embeddings, fewer for narrow ones; 256 threads per block.
    int lanes = dim >= 128 ? 128 : (dim >= 64 ? 64 : 32);
    dim3 block(lanes, 256 / lanes);
    embedding_lookup_coalesced<<<(ntok + block.y - 1) / block.y, block>>>(ntok, dim, seqlen, scale, ids, table, pos,
                                                                          out);
}
