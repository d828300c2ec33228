// A direct port: one thread per polygon runs the same Sutherland-Hodgman passes over per-thread
// vertex buffers and sums the shoelace area.
constexpr int kMaxOut = 16;

__device__ int clip_edge(const float* px, const float* py, int count, int axis, float bound, float side, float* qx,
                         float* qy) {
    int out = 0;
    for (int k = 0; k < count; ++k) {
        const int j = k + 1 == count ? 0 : k + 1;
        const float ak = axis == 0 ? px[k] : py[k], aj = axis == 0 ? px[j] : py[j];
        const bool in_k = side * (ak - bound) >= 0.0f, in_j = side * (aj - bound) >= 0.0f;
        if (in_k) {
            qx[out] = px[k];
            qy[out] = py[k];
            ++out;
        }
        if (in_k != in_j) {
            const float t = (bound - ak) / (aj - ak);
            qx[out] = axis == 0 ? bound : px[k] + t * (px[j] - px[k]);
            qy[out] = axis == 1 ? bound : py[k] + t * (py[j] - py[k]);
            ++out;
        }
    }
    return out;
}

__global__ void clip_kernel(int n, const int* nverts, const float* xs, const float* ys, float xmin, float ymin,
                            float xmax, float ymax, float* area) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float ax[kMaxOut], ay[kMaxOut], bx[kMaxOut], by[kMaxOut];
    int count = nverts[p];
    for (int k = 0; k < count; ++k) {
        ax[k] = xs[8 * p + k];
        ay[k] = ys[8 * p + k];
    }
    count = clip_edge(ax, ay, count, 0, xmin, 1.0f, bx, by);
    count = clip_edge(bx, by, count, 0, xmax, -1.0f, ax, ay);
    count = clip_edge(ax, ay, count, 1, ymin, 1.0f, bx, by);
    count = clip_edge(bx, by, count, 1, ymax, -1.0f, ax, ay);
    float twice = 0.0f;
    for (int k = 0; k < count; ++k) {
        const int j = k + 1 == count ? 0 : k + 1;
        twice += ax[k] * ay[j] - ax[j] * ay[k];
    }
    area[p] = 0.5f * fabsf(twice);
}

void clip_area_box(int n, const int* nverts, const float* xs, const float* ys, float xmin, float ymin, float xmax,
                   float ymax, float* area) {
    if (n > 0) clip_kernel<<<(n + 255) / 256, 256>>>(n, nverts, xs, ys, xmin, ymin, xmax, ymax, area);
}
