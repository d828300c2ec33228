#include <cmath>

void quantize_int8_rows(int rows, int cols, const float* x, const float* inv_scale, signed char* q) {
    for (int r = 0; r < rows; ++r) {
        float s = inv_scale[r];
        for (int c = 0; c < cols; ++c) {
            long long i = static_cast<long long>(r) * cols + c;
            float v = std::nearbyint(x[i] * s);
            v = v < -127.0f ? -127.0f : (v > 127.0f ? 127.0f : v);
            q[i] = static_cast<signed char>(v);
        }
    }
}
