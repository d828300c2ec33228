// steps: parallelize, memory_coalescing
// The AoS triangle records (3 ints in, 3 floats out) are staged through shared memory so that
// every global load and store of the block is a contiguous, coalesced sweep.

#define TPB 256

__global__ void __launch_bounds__(TPB) triangle_normals_tiled(int ntris, const float* verts,
                                                             const int* tris,
                                                             float* normals,
                                                             float* areas) {
    __shared__ int s_tri[3 * TPB];
    __shared__ float s_nrm[3 * TPB];
    long long base = (long long)blockIdx.x * TPB;
    int count = (int)min((long long)TPB, ntris - base);
    for (int k = threadIdx.x; k < 3 * count; k += TPB) s_tri[k] = tris[3 * base + k];
    __syncthreads();
    int t = threadIdx.x;
    if (t < count) {
        int ia = s_tri[3 * t], ib = s_tri[3 * t + 1], ic = s_tri[3 * t + 2];
        float ax = verts[3LL * ia], ay = verts[3LL * ia + 1], az = verts[3LL * ia + 2];
        float e1x = verts[3LL * ib] - ax, e1y = verts[3LL * ib + 1] - ay,
              e1z = verts[3LL * ib + 2] - az;
        float e2x = verts[3LL * ic] - ax, e2y = verts[3LL * ic + 1] - ay,
              e2z = verts[3LL * ic + 2] - az;
        float nx = e1y * e2z - e1z * e2y;
        float ny = e1z * e2x - e1x * e2z;
        float nz = e1x * e2y - e1y * e2x;
        float len = sqrtf(nx * nx + ny * ny + nz * nz);
        float inv = len > 0.0f ? 1.0f / len : 0.0f;
        s_nrm[3 * t] = nx * inv;
        s_nrm[3 * t + 1] = ny * inv;
        s_nrm[3 * t + 2] = nz * inv;
        areas[base + t] = 0.5f * len;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 3 * count; k += TPB) normals[3 * base + k] = s_nrm[k];
}

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    if (ntris <= 0) return;
    triangle_normals_tiled<<<(ntris + TPB - 1) / TPB, TPB>>>(ntris, verts, tris, normals, areas);
}
