#include <cmath>
#include <vector>

// Feature statistics for standardization (z-scoring) of a large training table, one pass over the
// rows with Welford's numerically stable update per column.
void column_stats(int rows, int cols, const float* data, float* mean, float* stddev, float* col_min, float* col_max) {
    std::vector<double> mu(cols, 0.0), m2(cols, 0.0);
    std::vector<float> lo(cols), hi(cols);
    for (int c = 0; c < cols; ++c) lo[c] = hi[c] = rows > 0 ? data[c] : 0.0f;
    for (int r = 0; r < rows; ++r) {
        const float* row = data + static_cast<long long>(r) * cols;
        const double count = r + 1;
        for (int c = 0; c < cols; ++c) {
            const double x = row[c];
            const double delta = x - mu[c];
            mu[c] += delta / count;
            m2[c] += delta * (x - mu[c]);
            if (row[c] < lo[c]) lo[c] = row[c];
            if (row[c] > hi[c]) hi[c] = row[c];
        }
    }
    for (int c = 0; c < cols; ++c) {
        mean[c] = static_cast<float>(mu[c]);
        stddev[c] = rows > 1 ? static_cast<float>(std::sqrt(m2[c] / (rows - 1))) : 0.0f;
        col_min[c] = lo[c];
        col_max[c] = hi[c];
    }
}
