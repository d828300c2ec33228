#include <cmath>

void pairwise_distances(int na, int nb, int dims, const float* A, const float* B, float* D) {
    for (int i = 0; i < na; ++i) {
        const float* a = A + static_cast<long long>(i) * dims;
        for (int j = 0; j < nb; ++j) {
            const float* b = B + static_cast<long long>(j) * dims;
            double sq = 0.0;
            for (int d = 0; d < dims; ++d) {
                const double diff = static_cast<double>(a[d]) - b[d];
                sq += diff * diff;
            }
            D[static_cast<long long>(i) * nb + j] = static_cast<float>(std::sqrt(sq));
        }
    }
}
