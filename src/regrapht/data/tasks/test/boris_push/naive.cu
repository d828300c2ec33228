__global__ void boris_kernel(int n, float* state, const float* efield, float qm_half_dt, float dt, float tx, float ty,
                             float tz, float sx, float sy, float sz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float* p = state + 6LL * i;
    const float* e = efield + 3LL * i;
    float vx = p[3] + qm_half_dt * e[0];
    float vy = p[4] + qm_half_dt * e[1];
    float vz = p[5] + qm_half_dt * e[2];
    float px = vx + (vy * tz - vz * ty);
    float py = vy + (vz * tx - vx * tz);
    float pz = vz + (vx * ty - vy * tx);
    vx += py * sz - pz * sy;
    vy += pz * sx - px * sz;
    vz += px * sy - py * sx;
    vx += qm_half_dt * e[0];
    vy += qm_half_dt * e[1];
    vz += qm_half_dt * e[2];
    p[0] += vx * dt;
    p[1] += vy * dt;
    p[2] += vz * dt;
    p[3] = vx;
    p[4] = vy;
    p[5] = vz;
}

void boris_push(int n, float* state, const float* efield, float bx, float by, float bz, float qm_half_dt, float dt) {
    if (n <= 0) return;
    float tx = qm_half_dt * bx, ty = qm_half_dt * by, tz = qm_half_dt * bz;
    float scale = 2.0f / (1.0f + tx * tx + ty * ty + tz * tz);
    boris_kernel<<<(n + 255) / 256, 256>>>(n, state, efield, qm_half_dt, dt, tx, ty, tz, scale * tx, scale * ty,
                                           scale * tz);
}
