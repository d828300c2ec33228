#define KNN_K 8

__global__ void knn_query_per_thread(int nq, int nref, int dims, const float* queries, const float* refs, int* knn_idx,
                                     float* knn_dist) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const float* p = queries + (long long)q * dims;
    float best_d[KNN_K];
    int best_i[KNN_K];
    int found = 0;
    for (int j = 0; j < nref; ++j) {
        const float* s = refs + (long long)j * dims;
        float d2 = 0.0f;
        for (int d = 0; d < dims; ++d) {
            float diff = s[d] - p[d];
            d2 += diff * diff;
        }
        if (found == KNN_K && d2 >= best_d[KNN_K - 1]) continue;
        int pos = found < KNN_K ? found++ : KNN_K - 1;
        while (pos > 0 && best_d[pos - 1] > d2) {
            best_d[pos] = best_d[pos - 1];
            best_i[pos] = best_i[pos - 1];
            --pos;
        }
        best_d[pos] = d2;
        best_i[pos] = j;
    }
    for (int t = 0; t < KNN_K; ++t) {
        knn_idx[(long long)q * KNN_K + t] = best_i[t];
        knn_dist[(long long)q * KNN_K + t] = best_d[t];
    }
}

void knn_bruteforce(int nq, int nref, int dims, const float* queries, const float* refs, int* knn_idx,
                    float* knn_dist) {
    if (nq <= 0) return;
    knn_query_per_thread<<<(nq + 127) / 128, 128>>>(nq, nref, dims, queries, refs, knn_idx, knn_dist);
}
