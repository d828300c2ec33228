// A direct parallel port: the points are cut into chunks of PB_CHUNK, and one thread per (chunk, box)
// counts the chunk's points inside its box (the threads of a warp read the same point at once) and
// adds its count to the box's total with one atomic.
#define PB_CHUNK 2048

__global__ void points_in_boxes_chunk(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int chunks = (npoints + PB_CHUNK - 1) / PB_CHUNK;
    if (t >= (long long)chunks * nboxes) return;
    int b = (int)(t % nboxes), chunk = (int)(t / nboxes);
    const float* box = boxes + 6LL * b;
    int p0 = chunk * PB_CHUNK, p1 = min(npoints, p0 + PB_CHUNK);
    int inside = 0;
    for (int p = p0; p < p1; ++p) {
        const float* q = points + 3LL * p;
        if (q[0] >= box[0] && q[0] <= box[3] && q[1] >= box[1] && q[1] <= box[4] && q[2] >= box[2] && q[2] <= box[5])
            ++inside;
    }
    if (inside) atomicAdd(&counts[b], inside);
}

void points_in_boxes(int npoints, int nboxes, const float* points, const float* boxes, int* counts) {
    if (nboxes <= 0) return;
    cudaMemsetAsync(counts, 0, nboxes * sizeof(int));
    long long threads = (long long)((npoints + PB_CHUNK - 1) / PB_CHUNK) * nboxes;
    if (threads > 0) points_in_boxes_chunk<<<(int)((threads + 255) / 256), 256>>>(npoints, nboxes, points, boxes, counts);
}
