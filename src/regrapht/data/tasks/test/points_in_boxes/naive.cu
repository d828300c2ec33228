__global__ void points_in_boxes_kernel(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nboxes) return;
    const float* box = boxes + 6LL * b;
    int inside = 0;
    for (int p = 0; p < npoints; ++p) {
        const float* q = points + 3LL * p;
        if (q[0] >= box[0] && q[0] <= box[3] && q[1] >= box[1] && q[1] <= box[4] && q[2] >= box[2] && q[2] <= box[5])
            ++inside;
    }
    counts[b] = inside;
}

void points_in_boxes(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    if (nboxes <= 0) return;
    points_in_boxes_kernel<<<(nboxes + 127) / 128, 128>>>(npoints, nboxes, points, boxes, counts);
}
