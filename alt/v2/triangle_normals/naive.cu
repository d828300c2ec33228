__global__ void triangle_normals_kernel(int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntris) return;
    const float* a = verts + 3LL * tris[3LL * t];
    const float* b = verts + 3LL * tris[3LL * t + 1];
    const float* c = verts + 3LL * tris[3LL * t + 2];
    float e1x = b[0] - a[0], e1y = b[1] - a[1], e1z = b[2] - a[2];
    float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
    float nx = e1y * e2z - e1z * e2y;
    float ny = e1z * e2x - e1x * e2z;
    float nz = e1x * e2y - e1y * e2x;
    float len = sqrtf(nx * nx + ny * ny + nz * nz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    normals[3LL * t] = nx * inv;
    normals[3LL * t + 1] = ny * inv;
    normals[3LL * t + 2] = nz * inv;
    areas[t] = 0.5f * len;
}

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    if (ntris <= 0) return;
    triangle_normals_kernel<<<(ntris + 255) / 256, 256>>>(ntris, verts, tris, normals, areas);
}
