#include <cmath>
#include <vector>

void causal_attention(int batch, int L, int D, const float* Q, const float* K, const float* V, float* O) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    std::vector<double> score(L);
    std::vector<double> acc(D);
    for (int b = 0; b < batch; ++b) {
        const long long base = static_cast<long long>(b) * L * D;
        const float* q = Q + base;
        const float* k = K + base;
        const float* v = V + base;
        float* o = O + base;
        for (int i = 0; i < L; ++i) {
            double peak = -INFINITY;
            for (int j = 0; j <= i; ++j) {
                double dot = 0.0;
                for (int d = 0; d < D; ++d) dot += static_cast<double>(q[i * D + d]) * k[j * D + d];
                score[j] = dot * scale;
                peak = std::fmax(peak, score[j]);
            }
            double total = 0.0;
            for (int d = 0; d < D; ++d) acc[d] = 0.0;
            for (int j = 0; j <= i; ++j) {
                const double p = std::exp(score[j] - peak);
                total += p;
                for (int d = 0; d < D; ++d) acc[d] += p * v[j * D + d];
            }
            for (int d = 0; d < D; ++d) o[i * D + d] = static_cast<float>(acc[d] / total);
        }
    }
}
