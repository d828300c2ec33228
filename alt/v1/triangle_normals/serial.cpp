#include <cmath>

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    for (int t = 0; t < ntris; ++t) {
        const float* a = verts + 3LL * tris[3 * static_cast<long long>(t)];
        const float* b = verts + 3LL * tris[3 * static_cast<long long>(t) + 1];
        const float* c = verts + 3LL * tris[3 * static_cast<long long>(t) + 2];
        const double e1[3] = {static_cast<double>(b[0]) - a[0], static_cast<double>(b[1]) - a[1],
                              static_cast<double>(b[2]) - a[2]};
        const double e2[3] = {static_cast<double>(c[0]) - a[0], static_cast<double>(c[1]) - a[1],
                              static_cast<double>(c[2]) - a[2]};
        const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        const double inv = len > 0.0 ? 1.0 / len : 0.0;
        for (int k = 0; k < 3; ++k) normals[3 * static_cast<long long>(t) + k] = static_cast<float>(n[k] * inv);
        areas[t] = static_cast<float>(0.5 * len);
    }
}
