// Greedy maximal independent set in priority order, the set a parallel MIS with fixed random
// priorities produces (used for graph coarsening and for scheduling conflict-free updates).
#include <vector>

void mis_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                  int* in_set) {
    (void)edges;
    std::vector<int> by_priority(vertices);
    for (int v = 0; v < vertices; ++v) {
        by_priority[priority[v]] = v;
        in_set[v] = 0;
    }
    for (int p = vertices - 1; p >= 0; --p) {
        const int v = by_priority[p];
        bool free = true;
        for (int e = row_ptr[v]; e < row_ptr[v + 1] && free; ++e) free = in_set[col_idx[e]] == 0;
        if (free) in_set[v] = 1;
    }
}
