#include <algorithm>
#include <vector>

void kmeans_fp64(int n, int k, int dims, int iters, const double* points, const double* init, int* labels,
                 double* centroids) {
    for (int e = 0; e < k * dims; ++e) centroids[e] = init[e];
    std::vector<double> sums(static_cast<size_t>(k) * dims);
    std::vector<int> counts(k);
    for (int it = 0; it < iters; ++it) {
        std::fill(sums.begin(), sums.end(), 0.0);
        std::fill(counts.begin(), counts.end(), 0);
        for (int p = 0; p < n; ++p) {
            const double* x = points + static_cast<long long>(p) * dims;
            int best = 0;
            double best_d = 0.0;
            for (int c = 0; c < k; ++c) {
                double d = 0.0;
                for (int j = 0; j < dims; ++j) {
                    double t = x[j] - centroids[c * dims + j];
                    d += t * t;
                }
                if (c == 0 || d < best_d) {
                    best_d = d;
                    best = c;
                }
            }
            labels[p] = best;
            counts[best] += 1;
            for (int j = 0; j < dims; ++j) sums[best * dims + j] += x[j];
        }
        for (int c = 0; c < k; ++c)
            if (counts[c] > 0)
                for (int j = 0; j < dims; ++j) centroids[c * dims + j] = sums[c * dims + j] / counts[c];
    }
}
