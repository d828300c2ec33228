#include <cmath>

// Distances and headings between consecutive GPS fixes of many vehicles (fleet telemetry).
void haversine_pairs(int n, const float* from, const float* to, float* distance_km, float* bearing_deg) {
    const float deg = 0.017453292519943295f;  // pi / 180
    const float radius_km = 6371.0f;
    for (int i = 0; i < n; ++i) {
        const float lat1 = from[2 * i] * deg, lon1 = from[2 * i + 1] * deg;
        const float lat2 = to[2 * i] * deg, lon2 = to[2 * i + 1] * deg;
        const float dlat = lat2 - lat1, dlon = lon2 - lon1;
        const float s_lat = std::sin(0.5f * dlat), s_lon = std::sin(0.5f * dlon);
        const float c1 = std::cos(lat1), c2 = std::cos(lat2);
        const float h = s_lat * s_lat + c1 * c2 * s_lon * s_lon;
        distance_km[i] = 2.0f * radius_km * std::asin(std::sqrt(std::fmin(h, 1.0f)));
        const float y = std::sin(dlon) * c2;
        const float x = c1 * std::sin(lat2) - std::sin(lat1) * c2 * std::cos(dlon);
        bearing_deg[i] = std::atan2(y, x) / deg;
    }
}
