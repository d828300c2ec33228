#include <cstddef>
#include <vector>

// Forward Euler with double temporaries, ping-ponging between two pairs of fields.
void gray_scott_steps(int H, int W, int steps, const float* u0, const float* v0, float* u, float* v, float* work) {
    (void)work;
    const double Du = 0.16, Dv = 0.08, F = 0.035, k = 0.065;
    const size_t cells = static_cast<size_t>(H) * W;
    std::vector<float> a(u0, u0 + cells), b(v0, v0 + cells), a2(cells), b2(cells);
    for (int s = 0; s < steps; ++s) {
        for (int i = 0; i < H; ++i) {
            const int up = (i + H - 1) % H, down = (i + 1) % H;
            for (int j = 0; j < W; ++j) {
                const int left = (j + W - 1) % W, right = (j + 1) % W;
                const size_t c = static_cast<size_t>(i) * W + j;
                const double uc = a[c], vc = b[c];
                const double lu = static_cast<double>(a[static_cast<size_t>(up) * W + j]) + a[static_cast<size_t>(down) * W + j] +
                                  a[static_cast<size_t>(i) * W + left] + a[static_cast<size_t>(i) * W + right] - 4.0 * uc;
                const double lv = static_cast<double>(b[static_cast<size_t>(up) * W + j]) + b[static_cast<size_t>(down) * W + j] +
                                  b[static_cast<size_t>(i) * W + left] + b[static_cast<size_t>(i) * W + right] - 4.0 * vc;
                const double uvv = uc * vc * vc;
                a2[c] = static_cast<float>(uc + Du * lu - uvv + F * (1.0 - uc));
                b2[c] = static_cast<float>(vc + Dv * lv + uvv - (F + k) * vc);
            }
        }
        a.swap(a2);
        b.swap(b2);
    }
    for (size_t c = 0; c < cells; ++c) {
        u[c] = a[c];
        v[c] = b[c];
    }
}
