// One thread per point.
__global__ void quat_rotate_kernel(int n, const float* quat, const float* px, const float* py, const float* pz,
                                   float* ox, float* oy, float* oz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float w = quat[4 * i], x = quat[4 * i + 1], y = quat[4 * i + 2], z = quat[4 * i + 3];
    float p0 = px[i], p1 = py[i], p2 = pz[i];
    float t0 = 2.0f * (y * p2 - z * p1);
    float t1 = 2.0f * (z * p0 - x * p2);
    float t2 = 2.0f * (x * p1 - y * p0);
    ox[i] = p0 + w * t0 + (y * t2 - z * t1);
    oy[i] = p1 + w * t1 + (z * t0 - x * t2);
    oz[i] = p2 + w * t2 + (x * t1 - y * t0);
}

void quat_rotate_points(int n, const float* quat, const float* px, const float* py, const float* pz, float* ox,
                        float* oy, float* oz) {
    if (n <= 0) return;
    quat_rotate_kernel<<<(n + 255) / 256, 256>>>(n, quat, px, py, pz, ox, oy, oz);
}
