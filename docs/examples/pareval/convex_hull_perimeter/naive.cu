struct Point {
    double x, y;
};

// The orientation of b against a->c, rounded as the serial code rounds it: nvcc would otherwise fuse
// one product into an fma, and the cross product of a point with itself would no longer be 0.
__device__ double orient(Point a, Point c, Point b) {
    return __dsub_rn(__dmul_rn(c.x - a.x, b.y - a.y), __dmul_rn(c.y - a.y, b.x - a.x));
}

// Thread i owns the hull edges that start at point i: point i is on the hull, going
// counter-clockwise, when some point j has every other point on the left of i->j (gift wrapping,
// one candidate edge per thread). O(n^2) per hull vertex, one launch, no workspace.
__global__ void convexHullPerimeter(const Point* points, size_t numPoints, double* perimeter) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= numPoints) return;
    Point a = points[i];
    // The next hull vertex after a: the point j such that no point lies to the right of a->j
    // (ties on the line: the farthest).
    size_t next = numPoints;
    for (size_t j = 0; j < numPoints; ++j) {
        Point b = points[j];
        if (b.x == a.x && b.y == a.y) continue;
        if (next == numPoints) { next = j; continue; }
        Point c = points[next];
        double turn = orient(a, c, b);
        double dc = (c.x - a.x) * (c.x - a.x) + (c.y - a.y) * (c.y - a.y);
        double db = (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y);
        if (turn < 0 || (turn == 0 && db > dc)) next = j;
    }
    if (next == numPoints) return;  // one distinct point: perimeter 0
    // a is a hull vertex only if every point is on the left of (or on) a->next.
    Point c = points[next];
    for (size_t j = 0; j < numPoints; ++j) {
        Point b = points[j];
        if (orient(a, c, b) < 0) return;
    }
    // a collinear point between a and next is not a vertex of its own edge: skip it when some
    // point lies strictly behind a on the same line (the edge then starts there).
    for (size_t j = 0; j < numPoints; ++j) {
        Point b = points[j];
        double turn = orient(a, c, b);
        double along = (c.x - a.x) * (b.x - a.x) + (c.y - a.y) * (b.y - a.y);
        if (turn == 0 && along < 0) return;
    }
    atomicAdd(perimeter, hypot(c.x - a.x, c.y - a.y));
}
