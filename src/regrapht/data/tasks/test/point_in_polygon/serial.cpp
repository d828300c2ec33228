void point_in_polygon(int npts, int nverts, const float* px, const float* py, const float* vx, const float* vy,
                      int* inside) {
    for (int p = 0; p < npts; ++p) {
        const float x = px[p], y = py[p];
        int in = 0;
        for (int i = 0, j = nverts - 1; i < nverts; j = i++) {
            const float xi = vx[i], yi = vy[i], xj = vx[j], yj = vy[j];
            if ((yi > y) != (yj > y)) {
                // x < the edge's crossing at height y, without a division: the sign of the cross
                // product relative to the edge's direction (exact on this task's grid).
                const float cross = (xj - xi) * (y - yi) - (x - xi) * (yj - yi);
                if (yj > yi ? cross > 0.0f : cross < 0.0f) in ^= 1;
            }
        }
        inside[p] = in;
    }
}
