#include <algorithm>
#include <vector>

// Andrew's monotone chain per set: sort by (x, y), build the lower and upper chains dropping
// non-left turns, then the shoelace sum over the hull, all in 64-bit integers.
static long long cross(long long ox, long long oy, long long ax, long long ay, long long bx, long long by) {
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);
}

void convex_hull_area_batch(int sets, int m, const int* px, const int* py, double* area) {
    std::vector<std::pair<long long, long long>> p(m), h(2 * m + 1);
    for (int s = 0; s < sets; ++s) {
        for (int t = 0; t < m; ++t) p[t] = {px[static_cast<long long>(s) * m + t], py[static_cast<long long>(s) * m + t]};
        std::sort(p.begin(), p.end());
        int k = 0;
        for (int t = 0; t < m; ++t) {
            while (k >= 2 && cross(h[k - 2].first, h[k - 2].second, h[k - 1].first, h[k - 1].second, p[t].first, p[t].second) <= 0) --k;
            h[k++] = p[t];
        }
        for (int t = m - 2, lower = k + 1; t >= 0; --t) {
            while (k >= lower && cross(h[k - 2].first, h[k - 2].second, h[k - 1].first, h[k - 1].second, p[t].first, p[t].second) <= 0) --k;
            h[k++] = p[t];
        }
        long long twice = 0;
        for (int t = 0; t + 1 < k; ++t) twice += h[t].first * h[t + 1].second - h[t + 1].first * h[t].second;
        area[s] = m < 3 ? 0.0 : 0.5 * static_cast<double>(twice);
    }
}
