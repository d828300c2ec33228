#include <cmath>

void gcn_edge_norm(int vertices, int edges, const int* row_ptr, const int* col_idx, const float* weights,
                   float* norm) {
    (void)edges;
    for (int u = 0; u < vertices; ++u) {
        const double du = 1.0 + (row_ptr[u + 1] - row_ptr[u]);
        for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
            const int v = col_idx[e];
            const double dv = 1.0 + (row_ptr[v + 1] - row_ptr[v]);
            norm[e] = static_cast<float>(weights[e] / std::sqrt(du * dv));
        }
    }
}
