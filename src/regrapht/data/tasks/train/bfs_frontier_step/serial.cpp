void bfs_frontier_step(int vertices, int edges, int frontier_level, const int* row_ptr, const int* col_idx,
                       int* level, int* discovered) {
    (void)edges;
    int found = 0;
    for (int u = 0; u < vertices; ++u) {
        if (level[u] != frontier_level) continue;
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            int v = col_idx[e];
            if (level[v] == -1) {
                level[v] = frontier_level + 1;
                ++found;
            }
        }
    }
    discovered[0] = found;
}
