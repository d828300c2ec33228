#include <cmath>

static void diffuse_step(int h, int w, float lambda, float inv_kappa2, const float* u, float* next) {
    for (int r = 0; r < h; ++r) {
        for (int c = 0; c < w; ++c) {
            long long p = static_cast<long long>(r) * w + c;
            float centre = u[p];
            float acc = 0.0f;
            const int dr[4] = {-1, 1, 0, 0};
            const int dc[4] = {0, 0, -1, 1};
            for (int k = 0; k < 4; ++k) {
                int rr = r + dr[k], cc = c + dc[k];
                if (rr < 0 || rr >= h || cc < 0 || cc >= w) continue;
                float d = u[static_cast<long long>(rr) * w + cc] - centre;
                acc += std::exp(-d * d * inv_kappa2) * d;
            }
            next[p] = centre + lambda * acc;
        }
    }
}

void perona_malik_steps(int h, int w, int steps, float lambda, float inv_kappa2, const float* image, float* work,
                        float* out) {
    const float* src = image;
    for (int s = 0; s < steps; ++s) {
        // alternate so that the last step lands in out
        float* dst = (steps - 1 - s) % 2 == 0 ? out : work;
        diffuse_step(h, w, lambda, inv_kappa2, src, dst);
        src = dst;
    }
}
