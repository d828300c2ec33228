void knn_bruteforce(int nq, int nref, int dims, const float* queries, const float* refs, int* knn_idx,
                    float* knn_dist) {
    const int K = 8;
    for (int q = 0; q < nq; ++q) {
        const float* p = queries + static_cast<long long>(q) * dims;
        double best_d[K];
        int best_i[K];
        int found = 0;
        for (int j = 0; j < nref; ++j) {
            const float* s = refs + static_cast<long long>(j) * dims;
            double d2 = 0.0;
            for (int d = 0; d < dims; ++d) {
                const double diff = static_cast<double>(s[d]) - p[d];
                d2 += diff * diff;
            }
            if (found == K && d2 >= best_d[K - 1]) continue;
            // Insert into the sorted list (stable: earlier references win ties).
            int pos = found < K ? found++ : K - 1;
            while (pos > 0 && best_d[pos - 1] > d2) {
                best_d[pos] = best_d[pos - 1];
                best_i[pos] = best_i[pos - 1];
                --pos;
            }
            best_d[pos] = d2;
            best_i[pos] = j;
        }
        for (int t = 0; t < K; ++t) {
            knn_idx[q * K + t] = best_i[t];
            knn_dist[q * K + t] = static_cast<float>(best_d[t]);
        }
    }
}
