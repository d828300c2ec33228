#include <cstddef>

void jacobi2D(const double* input, double* output, size_t N) {
    for (size_t i = 0; i < N; ++i) {
        for (size_t j = 0; j < N; ++j) {
            double up = i > 0 ? input[(i - 1) * N + j] : 0.0;
            double down = i + 1 < N ? input[(i + 1) * N + j] : 0.0;
            double left = j > 0 ? input[i * N + j - 1] : 0.0;
            double right = j + 1 < N ? input[i * N + j + 1] : 0.0;
            output[i * N + j] = (left + right + up + down + input[i * N + j]) / 5.0;
        }
    }
}
