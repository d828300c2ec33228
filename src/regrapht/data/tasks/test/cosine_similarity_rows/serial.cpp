#include <algorithm>
#include <cmath>

// Pairwise cosine similarity of matched embeddings (e.g. query vs. positive document in a batch).
void cosine_similarity_rows(int rows, int dim, const float* a, const float* b, float* cosine, float* norm_a) {
    for (int r = 0; r < rows; ++r) {
        const float* x = a + static_cast<long long>(r) * dim;
        const float* y = b + static_cast<long long>(r) * dim;
        double dot = 0.0, xx = 0.0, yy = 0.0;
        for (int j = 0; j < dim; ++j) {
            dot += static_cast<double>(x[j]) * y[j];
            xx += static_cast<double>(x[j]) * x[j];
            yy += static_cast<double>(y[j]) * y[j];
        }
        const double nx = std::sqrt(xx), ny = std::sqrt(yy);
        norm_a[r] = static_cast<float>(nx);
        cosine[r] = static_cast<float>(dot / std::max(nx * ny, 1e-12));
    }
}
