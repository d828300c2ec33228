#include <vector>

void label_propagation_steps(int vertices, int edges, int steps, int num_labels, const int* row_ptr,
                             const int* col_idx, const int* labels0, int* labels, int* work) {
    (void)edges;
    (void)work;
    std::vector<int> current(labels0, labels0 + vertices), next(vertices), tally(num_labels, 0);
    for (int s = 0; s < steps; ++s) {
        for (int v = 0; v < vertices; ++v) {
            const int first = row_ptr[v], last = row_ptr[v + 1];
            if (first == last) {
                next[v] = current[v];
                continue;
            }
            for (int e = first; e < last; ++e) ++tally[current[col_idx[e]]];
            int winner = num_labels, votes = 0;
            for (int e = first; e < last; ++e) {
                const int candidate = current[col_idx[e]];
                if (tally[candidate] > votes || (tally[candidate] == votes && candidate < winner)) {
                    winner = candidate;
                    votes = tally[candidate];
                }
            }
            for (int e = first; e < last; ++e) tally[current[col_idx[e]]] = 0;
            next[v] = winner;
        }
        current.swap(next);
    }
    for (int v = 0; v < vertices; ++v) labels[v] = current[v];
}
