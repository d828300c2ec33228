// Sutherland-Hodgman clipping of convex polygons to a box, then the shoelace area of what is left
// (coverage of a viewport, a pixel or a grid cell by polygons).
#include <cmath>

namespace {

constexpr int kMaxOut = 16;  // a convex polygon of 8 vertices gains at most one vertex per box edge

// Keeps the part of (px, py)[0..count) with side * (coord - bound) >= 0, where coord is x (axis 0)
// or y (axis 1); returns the new vertex count.
int clip_edge(const float* px, const float* py, int count, int axis, float bound, float side, float* qx, float* qy) {
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

}  // namespace

void clip_area_box(int n, const int* nverts, const float* xs, const float* ys, float xmin, float ymin, float xmax,
                   float ymax, float* area) {
    float ax[kMaxOut], ay[kMaxOut], bx[kMaxOut], by[kMaxOut];
    for (int p = 0; p < n; ++p) {
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
        area[p] = 0.5f * std::fabs(twice);
    }
}
