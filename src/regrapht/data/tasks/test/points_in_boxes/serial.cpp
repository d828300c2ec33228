void points_in_boxes(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    for (int b = 0; b < nboxes; ++b) {
        const float* box = boxes + 6LL * b;
        int inside = 0;
        for (int p = 0; p < npoints; ++p) {
            const float* q = points + 3LL * p;
            inside += (q[0] >= box[0]) & (q[0] <= box[3]) & (q[1] >= box[1]) & (q[1] <= box[4]) & (q[2] >= box[2]) &
                      (q[2] <= box[5]);
        }
        counts[b] = inside;
    }
}
