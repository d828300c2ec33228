void degree_counts(int vertices, int edges, const int* row_ptr, const int* col_idx, int* out_degree,
                   int* in_degree) {
    (void)edges;
    for (int v = 0; v < vertices; ++v) {
        out_degree[v] = row_ptr[v + 1] - row_ptr[v];
        in_degree[v] = 0;
    }
    for (int v = 0; v < vertices; ++v) {
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) in_degree[col_idx[e]] += 1;
    }
}
