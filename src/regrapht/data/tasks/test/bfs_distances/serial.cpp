#include <cstddef>
#include <vector>

void bfs_distances(int vertices, int edges, int source, const int* row_ptr, const int* col_idx, int* dist) {
    (void)edges;
    for (int v = 0; v < vertices; ++v) dist[v] = -1;
    if (source < 0 || source >= vertices) return;
    std::vector<int> queue;
    queue.reserve(vertices);
    dist[source] = 0;
    queue.push_back(source);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const int u = queue[head];
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            const int v = col_idx[e];
            if (dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
}
