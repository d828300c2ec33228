// Road-network style routing: Dijkstra's algorithm with a binary heap over integer edge lengths.
#include <climits>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

void sssp_int_weights(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, const int* weights,
                      int* dist) {
    (void)edges;
    std::vector<int> best(vertices, INT_MAX);
    if (source >= 0 && source < vertices) {
        using Item = std::pair<int, int>;  // (distance, vertex)
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
        best[source] = 0;
        heap.push({0, source});
        while (!heap.empty()) {
            const auto [d, u] = heap.top();
            heap.pop();
            if (d > best[u]) continue;  // a stale entry: u was settled with a shorter distance
            for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
                const int v = col_idx[e];
                const int nd = d + weights[e];
                if (nd < best[v]) {
                    best[v] = nd;
                    heap.push({nd, v});
                }
            }
        }
    }
    for (int v = 0; v < vertices; ++v) dist[v] = best[v] == INT_MAX ? -1 : best[v];
}
