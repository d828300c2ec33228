#include <vector>

// Union-find where the smaller root always becomes the parent, so every root is the smallest id
// of its set.
static int find_root(std::vector<int>& parent, int v) {
    int root = v;
    while (parent[root] != root) root = parent[root];
    while (parent[v] != root) {  // path compression
        int next = parent[v];
        parent[v] = root;
        v = next;
    }
    return root;
}

void connected_components(int vertices, int edges, const int* row_ptr, const int* col_idx, int* label) {
    (void)edges;
    std::vector<int> parent(vertices);
    for (int v = 0; v < vertices; ++v) parent[v] = v;
    for (int u = 0; u < vertices; ++u) {
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            const int v = col_idx[e];
            if (v < u) continue;  // each undirected edge once
            int ru = find_root(parent, u), rv = find_root(parent, v);
            if (ru == rv) continue;
            if (ru < rv) parent[rv] = ru;
            else parent[ru] = rv;
        }
    }
    for (int v = 0; v < vertices; ++v) label[v] = find_root(parent, v);
}
