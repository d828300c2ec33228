#include <vector>

void conv2d_3x3(int N, int Cin, int H, int W, int Cout, const float* x, const float* weight, const float* bias,
                float* y) {
    const long long plane = static_cast<long long>(H) * W;
    std::vector<double> acc(plane);
    for (int n = 0; n < N; ++n) {
        for (int co = 0; co < Cout; ++co) {
            for (long long i = 0; i < plane; ++i) acc[i] = bias[co];
            for (int ci = 0; ci < Cin; ++ci) {
                const float* in = x + (static_cast<long long>(n) * Cin + ci) * plane;
                const float* k = weight + (static_cast<long long>(co) * Cin + ci) * 9;
                for (int kh = 0; kh < 3; ++kh) {
                    for (int kw = 0; kw < 3; ++kw) {
                        const double wk = k[kh * 3 + kw];
                        // Output rows/columns whose tap (h + kh - 1, w + kw - 1) lies inside the image.
                        const int h0 = kh == 0 ? 1 : 0, h1 = kh == 2 ? H - 1 : H;
                        const int w0 = kw == 0 ? 1 : 0, w1 = kw == 2 ? W - 1 : W;
                        for (int h = h0; h < h1; ++h) {
                            const float* src = in + static_cast<long long>(h + kh - 1) * W + (kw - 1);
                            double* dst = acc.data() + static_cast<long long>(h) * W;
                            for (int w = w0; w < w1; ++w) dst[w] += wk * src[w];
                        }
                    }
                }
            }
            float* out = y + (static_cast<long long>(n) * Cout + co) * plane;
            for (long long i = 0; i < plane; ++i) out[i] = static_cast<float>(acc[i]);
        }
    }
}
