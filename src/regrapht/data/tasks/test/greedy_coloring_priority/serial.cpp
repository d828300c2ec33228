// Greedy coloring in priority order: the coloring Jones-Plassmann's parallel rounds produce.
#include <algorithm>
#include <numeric>
#include <vector>

void greedy_coloring_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                              int* color) {
    (void)edges;
    std::vector<int> order(vertices);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [priority](int a, int b) { return priority[a] > priority[b]; });
    std::fill(color, color + vertices, -1);
    std::vector<char> taken;
    for (const int v : order) {
        // A vertex of degree d needs at most color d; flag the colors its colored neighbours hold.
        const int degree = row_ptr[v + 1] - row_ptr[v];
        taken.assign(degree + 1, 0);
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
            const int c = color[col_idx[e]];
            if (c >= 0 && c <= degree) taken[c] = 1;
        }
        color[v] = static_cast<int>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
    }
}
