void boris_push(int n, float* state, const float* efield, float bx, float by, float bz, float qm_half_dt, float dt) {
    const float tx = qm_half_dt * bx, ty = qm_half_dt * by, tz = qm_half_dt * bz;
    const float scale = 2.0f / (1.0f + tx * tx + ty * ty + tz * tz);
    const float sx = scale * tx, sy = scale * ty, sz = scale * tz;
    for (int i = 0; i < n; ++i) {
        float* p = state + 6LL * i;
        const float* e = efield + 3LL * i;
        // half electric kick
        float vx = p[3] + qm_half_dt * e[0];
        float vy = p[4] + qm_half_dt * e[1];
        float vz = p[5] + qm_half_dt * e[2];
        // magnetic rotation
        float px = vx + (vy * tz - vz * ty);
        float py = vy + (vz * tx - vx * tz);
        float pz = vz + (vx * ty - vy * tx);
        vx += py * sz - pz * sy;
        vy += pz * sx - px * sz;
        vz += px * sy - py * sx;
        // second half kick
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
}
