// steps: parallelize, algorithmic_change, loop_unrolling, vectorized_access
// Green's theorem instead of building the clipped polygon: the boundary of (polygon ∩ box) is the
// part of each polygon edge inside the box (Liang-Barsky) plus the part of each box edge inside the
// convex polygon (Cyrus-Beck), both traversed counter-clockwise, so the area is half the sum of
// cross(start, end) over those pieces. Every loop has a fixed trip count (8 polygon slots, 4 box
// edges) and is unrolled with predication, so the vertices stay in registers: no per-thread vertex
// buffers in local memory as in Sutherland-Hodgman. Each thread reads its 8 vertex slots with two
// 16-byte loads per coordinate.
#include <cstdint>

constexpr int kThreads = 256;

__device__ __forceinline__ float cross2(float ax, float ay, float bx, float by) { return ax * by - bx * ay; }

// Liang-Barsky step: narrows [t0, t1] to the parameters t with p * t <= q.
__device__ __forceinline__ void lb_clip(float p, float q, float& t0, float& t1) {
    if (p == 0.0f) {
        if (q < 0.0f) t1 = -1.0f;  // parallel and outside: empty
    } else {
        const float t = q / p;
        if (p < 0.0f) t0 = fmaxf(t0, t);
        else t1 = fminf(t1, t);
    }
}

__global__ void __launch_bounds__(kThreads)
    clip_area_green(int n, const int* __restrict__ nverts, const float* __restrict__ xs, const float* __restrict__ ys,
                    bool aligned, float xmin, float ymin, float xmax, float ymax, float* __restrict__ area) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const int count = nverts[p];
    float x[8], y[8];
    if (aligned) {
        const float4* x4 = reinterpret_cast<const float4*>(xs) + 2 * static_cast<long long>(p);
        const float4* y4 = reinterpret_cast<const float4*>(ys) + 2 * static_cast<long long>(p);
        const float4 xa = x4[0], xb = x4[1], ya = y4[0], yb = y4[1];
        x[0] = xa.x, x[1] = xa.y, x[2] = xa.z, x[3] = xa.w, x[4] = xb.x, x[5] = xb.y, x[6] = xb.z, x[7] = xb.w;
        y[0] = ya.x, y[1] = ya.y, y[2] = ya.z, y[3] = ya.w, y[4] = yb.x, y[5] = yb.y, y[6] = yb.z, y[7] = yb.w;
    } else {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            x[k] = xs[8LL * p + k];
            y[k] = ys[8LL * p + k];
        }
    }
    float twice = 0.0f;
    // Polygon edges, clipped to the box.
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if (k < count) {
            const float x0 = x[k], y0 = y[k];
            const float x1 = (k == 7 || k + 1 == count) ? x[0] : x[k < 7 ? k + 1 : 0];
            const float y1 = (k == 7 || k + 1 == count) ? y[0] : y[k < 7 ? k + 1 : 0];
            const float dx = x1 - x0, dy = y1 - y0;
            float t0 = 0.0f, t1 = 1.0f;
            lb_clip(-dx, x0 - xmin, t0, t1);
            lb_clip(dx, xmax - x0, t0, t1);
            lb_clip(-dy, y0 - ymin, t0, t1);
            lb_clip(dy, ymax - y0, t0, t1);
            if (t0 < t1) twice += cross2(x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy);
        }
    }
    // Box edges, counter-clockwise, clipped to the polygon's inner half-planes.
    const float bx[4] = {xmin, xmax, xmax, xmin}, by[4] = {ymin, ymin, ymax, ymax};
#pragma unroll
    for (int b = 0; b < 4; ++b) {
        const float sx = bx[b], sy = by[b], ex = bx[(b + 1) % 4], ey = by[(b + 1) % 4];
        const float ux = ex - sx, uy = ey - sy;
        float lo = 0.0f, hi = 1.0f;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if (k < count) {
                const float x1 = (k == 7 || k + 1 == count) ? x[0] : x[k < 7 ? k + 1 : 0];
                const float y1 = (k == 7 || k + 1 == count) ? y[0] : y[k < 7 ? k + 1 : 0];
                const float dx = x1 - x[k], dy = y1 - y[k];
                // Inside edge k: cross(d, X - P_k) >= 0 with X = S + t U, i.e. c0 + t c1 >= 0.
                const float c0 = cross2(dx, dy, sx - x[k], sy - y[k]);
                const float c1 = cross2(dx, dy, ux, uy);
                lb_clip(-c1, c0, lo, hi);
            }
        }
        if (lo < hi) twice += cross2(sx + lo * ux, sy + lo * uy, sx + hi * ux, sy + hi * uy);
    }
    area[p] = 0.5f * fabsf(twice);
}

void clip_area_box(int n, const int* nverts, const float* xs, const float* ys, float xmin, float ymin, float xmax,
                   float ymax, float* area) {
    if (n <= 0) return;
    const bool aligned = reinterpret_cast<std::uintptr_t>(xs) % 16 == 0 && reinterpret_cast<std::uintptr_t>(ys) % 16 == 0;
    clip_area_green<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, nverts, xs, ys, aligned, xmin, ymin, xmax, ymax,
                                                                  area);
}
