void quat_rotate_points(int n, const float* quat, const float* px, const float* py, const float* pz, float* ox,
                        float* oy, float* oz) {
    for (int i = 0; i < n; ++i) {
        const float w = quat[4 * i], x = quat[4 * i + 1], y = quat[4 * i + 2], z = quat[4 * i + 3];
        const float p0 = px[i], p1 = py[i], p2 = pz[i];
        // t = 2 (u x p)
        const float t0 = 2.0f * (y * p2 - z * p1);
        const float t1 = 2.0f * (z * p0 - x * p2);
        const float t2 = 2.0f * (x * p1 - y * p0);
        // p + w t + u x t
        ox[i] = p0 + w * t0 + (y * t2 - z * t1);
        oy[i] = p1 + w * t1 + (z * t0 - x * t2);
        oz[i] = p2 + w * t2 + (x * t1 - y * t0);
    }
}
