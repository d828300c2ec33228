// Greedy coloring in priority order: the coloring Jones-Plassmann's parallel rounds produce.
#include <vector>

void greedy_coloring_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                              int* color) {
    (void)edges;
    std::vector<int> by_priority(vertices);
    for (int v = 0; v < vertices; ++v) {
        by_priority[priority[v]] = v;
        color[v] = -1;
    }
    std::vector<int> seen_by(vertices + 1, -1);  // seen_by[c] == v: a neighbour of v has color c
    for (int p = vertices - 1; p >= 0; --p) {
        const int v = by_priority[p];
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
            const int c = color[col_idx[e]];
            if (c >= 0) seen_by[c] = v;
        }
        int c = 0;
        while (seen_by[c] == v) ++c;
        color[v] = c;
    }
}
