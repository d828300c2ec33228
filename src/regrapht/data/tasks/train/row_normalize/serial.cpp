#include <cmath>

void row_normalize(int rows, int dims, const float* features, float* unit, float* norms) {
    for (int r = 0; r < rows; ++r) {
        const float* row = features + static_cast<long long>(r) * dims;
        double sum = 0.0;
        for (int d = 0; d < dims; ++d) sum += static_cast<double>(row[d]) * row[d];
        float norm = static_cast<float>(std::sqrt(sum));
        norms[r] = norm;
        float scale = norm > 0.0f ? 1.0f / norm : 0.0f;
        for (int d = 0; d < dims; ++d) unit[static_cast<long long>(r) * dims + d] = row[d] * scale;
    }
}
