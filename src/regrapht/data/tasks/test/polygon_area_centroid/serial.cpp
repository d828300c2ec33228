void polygon_area_centroid(int npoly, int nverts, const int* poly_ptr, const float* vx, const float* vy, float* area,
                           float* cx, float* cy) {
    (void)nverts;
    for (int p = 0; p < npoly; ++p) {
        const int s = poly_ptr[p], e = poly_ptr[p + 1];
        double a2 = 0.0, sx = 0.0, sy = 0.0;
        for (int i = s; i < e; ++i) {
            const int j = i + 1 < e ? i + 1 : s;
            const double xi = vx[i], yi = vy[i], xj = vx[j], yj = vy[j];
            const double c = xi * yj - xj * yi;
            a2 += c;
            sx += (xi + xj) * c;
            sy += (yi + yj) * c;
        }
        area[p] = static_cast<float>(0.5 * a2);
        cx[p] = static_cast<float>(sx / (3.0 * a2));
        cy[p] = static_cast<float>(sy / (3.0 * a2));
    }
}
