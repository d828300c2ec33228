void jaccard_edges(int vertices, int edges, const int* row_ptr, const int* col_idx, int* common,
                   float* jaccard) {
    (void)edges;
    for (int u = 0; u < vertices; ++u) {
        const int du = row_ptr[u + 1] - row_ptr[u];
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            const int v = col_idx[e];
            const int dv = row_ptr[v + 1] - row_ptr[v];
            // merge-intersect the two sorted neighbour lists
            int a = row_ptr[u], b = row_ptr[v], shared = 0;
            while (a < row_ptr[u + 1] && b < row_ptr[v + 1]) {
                if (col_idx[a] < col_idx[b]) ++a;
                else if (col_idx[a] > col_idx[b]) ++b;
                else {
                    ++shared;
                    ++a;
                    ++b;
                }
            }
            common[e] = shared;
            jaccard[e] = static_cast<float>(static_cast<double>(shared) / (du + dv - shared));
        }
    }
}
