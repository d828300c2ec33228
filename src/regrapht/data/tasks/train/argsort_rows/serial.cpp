#include <algorithm>
#include <numeric>
#include <vector>

// Per-row argsort (ranking the candidates of each query), ties broken by column.
void argsort_rows(int rows, int cols, const float* values, float* sorted, int* order) {
    std::vector<int> idx(cols);
    for (int r = 0; r < rows; ++r) {
        const float* row = values + static_cast<long long>(r) * cols;
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [row](int i, int j) { return row[i] < row[j]; });
        for (int c = 0; c < cols; ++c) {
            sorted[static_cast<long long>(r) * cols + c] = row[idx[c]];
            order[static_cast<long long>(r) * cols + c] = idx[c];
        }
    }
}
