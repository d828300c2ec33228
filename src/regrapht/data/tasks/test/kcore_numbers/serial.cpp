// k-core decomposition (Batagelj-Zaversnik): vertices kept in an array sorted by current degree
// with bucket starts, so peeling the smallest-degree vertex and lowering a neighbour's degree are
// O(1) swaps; the whole decomposition is O(vertices + edges).
#include <algorithm>
#include <vector>

void kcore_numbers(int vertices, int edges, const int* row_ptr, const int* col_idx, int* core) {
    (void)edges;
    if (vertices <= 0) return;
    std::vector<int> deg(vertices), pos(vertices), order(vertices);
    int max_deg = 0;
    for (int v = 0; v < vertices; ++v) {
        deg[v] = row_ptr[v + 1] - row_ptr[v];
        max_deg = std::max(max_deg, deg[v]);
    }
    std::vector<int> bucket(max_deg + 2, 0);  // bucket[d]: first slot of degree d in `order`
    for (int v = 0; v < vertices; ++v) ++bucket[deg[v] + 1];
    for (int d = 1; d <= max_deg + 1; ++d) bucket[d] += bucket[d - 1];
    std::vector<int> fill(bucket.begin(), bucket.end() - 1);
    for (int v = 0; v < vertices; ++v) {
        pos[v] = fill[deg[v]]++;
        order[pos[v]] = v;
    }
    for (int i = 0; i < vertices; ++i) {
        const int v = order[i];
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
            const int u = col_idx[e];
            if (deg[u] > deg[v]) {
                // Move u to the front of its degree bucket, then shrink that bucket by one.
                const int du = deg[u], pu = pos[u], pw = bucket[du], w = order[pw];
                if (u != w) {
                    order[pu] = w;
                    pos[w] = pu;
                    order[pw] = u;
                    pos[u] = pw;
                }
                ++bucket[du];
                --deg[u];
            }
        }
    }
    for (int v = 0; v < vertices; ++v) core[v] = deg[v];
}
