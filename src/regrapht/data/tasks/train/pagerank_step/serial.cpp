void pagerank_step(int vertices, int edges, float damping, const int* in_ptr, const int* in_src,
                   const float* inv_out_degree, const float* rank, float* next_rank) {
    (void)edges;
    const double base = (1.0 - damping) / vertices;
    for (int v = 0; v < vertices; ++v) {
        double sum = 0.0;
        for (int e = in_ptr[v]; e < in_ptr[v + 1]; ++e) {
            int u = in_src[e];
            sum += static_cast<double>(rank[u]) * inv_out_degree[u];
        }
        next_rank[v] = static_cast<float>(base + damping * sum);
    }
}
