// Select the particles of a simulation snapshot that lie inside a region of interest and are heavy
// enough, emitting a compact structure-of-arrays copy for analysis.
struct Particle {
    float x, y, z, vx, vy, vz, mass, charge;
};

void filter_particles_box(int n, float box_lo, float box_hi, float min_mass, const float* particles, float* out_x,
                          float* out_y, float* out_z, int* out_index, int* count) {
    const Particle* p = reinterpret_cast<const Particle*>(particles);
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        const Particle& q = p[i];
        const bool inside = q.x >= box_lo && q.x < box_hi && q.y >= box_lo && q.y < box_hi && q.z >= box_lo &&
                            q.z < box_hi;
        if (inside && q.mass >= min_mass) {
            out_x[kept] = q.x;
            out_y[kept] = q.y;
            out_z[kept] = q.z;
            out_index[kept] = i;
            ++kept;
        }
    }
    for (int j = kept; j < n; ++j) {
        out_x[j] = out_y[j] = out_z[j] = 0.0f;
        out_index[j] = -1;
    }
    count[0] = kept;
}
