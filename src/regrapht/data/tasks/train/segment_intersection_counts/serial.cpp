// All pairs, each tested once with the exact orientation predicates (64-bit integers): two closed
// segments meet when each one's endpoints are on different sides of (or on) the other's line,
// or when a collinear endpoint lies within the other segment's bounding box.
static int orient(long long ax, long long ay, long long bx, long long by, long long cx, long long cy) {
    long long v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    return (v > 0) - (v < 0);
}

static bool on_segment(long long ax, long long ay, long long bx, long long by, long long cx, long long cy) {
    return (cx >= (ax < bx ? ax : bx)) && (cx <= (ax > bx ? ax : bx)) && (cy >= (ay < by ? ay : by)) &&
           (cy <= (ay > by ? ay : by));
}

static bool meet(long long ax, long long ay, long long bx, long long by, long long cx, long long cy, long long dx,
                 long long dy) {
    const int o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
    const int o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
    if (o1 != o2 && o3 != o4) return true;
    if (o1 == 0 && on_segment(ax, ay, bx, by, cx, cy)) return true;
    if (o2 == 0 && on_segment(ax, ay, bx, by, dx, dy)) return true;
    if (o3 == 0 && on_segment(cx, cy, dx, dy, ax, ay)) return true;
    if (o4 == 0 && on_segment(cx, cy, dx, dy, bx, by)) return true;
    return false;
}

void segment_intersection_counts(int n, const int* x0, const int* y0, const int* x1, const int* y1, int* count) {
    for (int i = 0; i < n; ++i) count[i] = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (meet(x0[i], y0[i], x1[i], y1[i], x0[j], y0[j], x1[j], y1[j])) {
                ++count[i];
                ++count[j];
            }
}
