#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

static double cross(const Point& o, const Point& a, const Point& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Andrew's monotone chain; the perimeter is the closed hull's length (collinear points dropped).
void convexHullPerimeter(const Point* points, size_t numPoints, double* perimeter) {
    std::vector<Point> p(points, points + numPoints);
    std::sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    if (p.size() < 2) {
        *perimeter = 0.0;
        return;
    }
    std::vector<Point> hull(2 * p.size());
    size_t k = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], p[i]) <= 0) --k;
        hull[k++] = p[i];
    }
    for (size_t i = p.size() - 1, lower = k + 1; i-- > 0;) {
        while (k >= lower && cross(hull[k - 2], hull[k - 1], p[i]) <= 0) --k;
        hull[k++] = p[i];
    }
    double total = 0.0;
    for (size_t i = 0; i + 1 < k; ++i) total += std::hypot(hull[i + 1].x - hull[i].x, hull[i + 1].y - hull[i].y);
    *perimeter = total;
}
