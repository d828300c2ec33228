// Lookup-table interpolation (a calibration curve or a tabulated material property).
void interp1d_table(int knots, int n, const float* knot_x, const float* knot_y, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        const float q = x[i];
        if (!(q >= knot_x[0])) {
            y[i] = knot_y[0];
            continue;
        }
        if (q >= knot_x[knots - 1]) {
            y[i] = knot_y[knots - 1];
            continue;
        }
        int lo = 0, hi = knots - 1;  // invariant: knot_x[lo] <= q < knot_x[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (knot_x[mid] <= q) lo = mid;
            else hi = mid;
        }
        const float t = (q - knot_x[lo]) / (knot_x[hi] - knot_x[lo]);
        y[i] = knot_y[lo] + t * (knot_y[hi] - knot_y[lo]);
    }
}
