// steps: parallelize, algorithmic_change, loop_unrolling, vectorized_access, fast_math_intrinsics
// Green's theorem instead of building the clipped polygon, in coordinates relative to the box's
// lower-left corner (X = x - xmin, Y = y - ymin, box [0, W] x [0, H]). The boundary of
// (polygon ∩ box) is the part of each polygon edge inside the box plus the part of each box edge
// inside the convex polygon, traversed counter-clockwise; twice the area is the sum of
// cross(start, end) over those pieces. With the origin at a box corner, the bottom and left box
// edges lie on lines through the origin and contribute nothing; the right edge contributes W times
// the length of the polygon's chord on X = W inside [0, H], the top edge H times its chord on Y = H
// inside [0, W]. A polygon edge P0 -> P1 clipped to parameters [t0, t1] (Liang-Barsky slabs)
// contributes (t1 - t0) cross(P0, P1). The chords come from the two edges that cross each line
// (half-open side tests, so a vertex on the line is counted once): on a counter-clockwise polygon
// the edge crossing X = W rightwards is the chord's lower end, the one crossing Y = H upwards its
// right end. Each edge needs two reciprocals (1/dX, 1/dY), shared by the slabs and the chord
// points; the previous version ran 64 IEEE divisions a polygon (a clip of every edge against four
// box sides and of every box side against the polygon) and was bound by instruction issue, not by
// DRAM. Every loop has a fixed trip count (8 slots) and is unrolled with predication, so the
// vertices stay in registers; each thread reads its 8 slots with two 16-byte loads a coordinate.
#include <cstdint>

constexpr int kThreads = 256;

__device__ __forceinline__ float clip_area_one(int count, const float (&x)[8], const float (&y)[8], float xmin,
                                               float ymin, float W, float H) {
    float twice = 0.0f;
    float r_lo = 3.0e38f, r_hi = -3.0e38f;  // chord on X = W: Y range
    float t_lo = 3.0e38f, t_hi = -3.0e38f;  // chord on Y = H: X range
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if (k < count) {
            const bool wrap = k == 7 || k + 1 == count;
            const float X0 = x[k] - xmin, Y0 = y[k] - ymin;
            const float X1 = (wrap ? x[0] : x[k < 7 ? k + 1 : 0]) - xmin;
            const float Y1 = (wrap ? y[0] : y[k < 7 ? k + 1 : 0]) - ymin;
            const float dX = X1 - X0, dY = Y1 - Y0;
            // 1/0 is +-inf: the slab of an axis-parallel edge is then (-inf, inf) inside the box and
            // empty outside it; 0 * inf (the edge on a slab's boundary) is NaN, which fminf/fmaxf
            // skip, so such an edge is dropped here and counted by the chord of that box edge.
            const float rx = __frcp_rn(dX), ry = __frcp_rn(dY);
            // parameters of X = 0 and X = W, Y = 0 and Y = H (not fmaf(W, rx, ax): inf - inf)
            const float ax = -X0 * rx, bx = (W - X0) * rx;
            const float ay = -Y0 * ry, by = (H - Y0) * ry;
            const float t0 = fmaxf(fmaxf(0.0f, fminf(ax, bx)), fminf(ay, by));
            const float t1 = fminf(fminf(1.0f, fmaxf(ax, bx)), fmaxf(ay, by));
            twice = fmaf(fmaxf(t1 - t0, 0.0f), X0 * Y1 - X1 * Y0, twice);
            const bool in0 = X0 < W, in1 = X1 < W;
            if (in0 != in1) {  // dX != 0 here
                const float yc = fmaf(bx, dY, Y0);
                if (in0) r_lo = yc;
                else r_hi = yc;
            }
            const bool below0 = Y0 < H, below1 = Y1 < H;
            if (below0 != below1) {  // dY != 0 here
                const float xc = fmaf(by, dX, X0);
                if (below0) t_hi = xc;
                else t_lo = xc;
            }
        }
    }
    twice = fmaf(W, fmaxf(fminf(r_hi, H) - fmaxf(r_lo, 0.0f), 0.0f), twice);
    twice = fmaf(H, fmaxf(fminf(t_hi, W) - fmaxf(t_lo, 0.0f), 0.0f), twice);
    return 0.5f * fabsf(twice);
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
    area[p] = clip_area_one(count, x, y, xmin, ymin, xmax - xmin, ymax - ymin);
}

void clip_area_box(int n, const int* nverts, const float* xs, const float* ys, float xmin, float ymin, float xmax,
                   float ymax, float* area) {
    if (n <= 0) return;
    const bool aligned = reinterpret_cast<std::uintptr_t>(xs) % 16 == 0 && reinterpret_cast<std::uintptr_t>(ys) % 16 == 0;
    clip_area_green<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, nverts, xs, ys, aligned, xmin, ymin, xmax, ymax,
                                                                  area);
}
