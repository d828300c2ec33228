#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

// Sort by x, then compare each point with the following ones while their x gap is below the best.
void closestPair(const Point* points, size_t numPoints, double* distance) {
    if (numPoints < 2) return;
    std::vector<Point> p(points, points + numPoints);
    std::sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    double best = INFINITY;
    for (size_t i = 0; i < p.size(); ++i) {
        for (size_t j = i + 1; j < p.size() && p[j].x - p[i].x < best; ++j) {
            double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
            best = std::min(best, std::sqrt(dx * dx + dy * dy));
        }
    }
    *distance = best;
}
