void triangle_count(int vertices, int edges, const int* row_ptr, const int* col_idx, int* triangles) {
    (void)edges;
    for (int v = 0; v < vertices; ++v) triangles[v] = 0;
    // Each triangle u < v < w is found once: from edge (u, v), intersecting the parts of both rows above v.
    for (int u = 0; u < vertices; ++u) {
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            const int v = col_idx[e];
            if (v <= u) continue;
            int a = e + 1, b = row_ptr[v];
            const int a_end = row_ptr[u + 1], b_end = row_ptr[v + 1];
            while (b < b_end && col_idx[b] <= v) ++b;
            while (a < a_end && b < b_end) {
                if (col_idx[a] < col_idx[b]) ++a;
                else if (col_idx[a] > col_idx[b]) ++b;
                else {
                    const int w = col_idx[a];
                    triangles[u] += 1;
                    triangles[v] += 1;
                    triangles[w] += 1;
                    ++a;
                    ++b;
                }
            }
        }
    }
}
