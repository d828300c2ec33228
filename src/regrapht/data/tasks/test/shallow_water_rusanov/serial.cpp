#include <cmath>
#include <vector>

namespace {

struct Cell {
    float h, hu, hv;
};

// Physical flux across an x face (dir 0) or a y face (dir 1), and the fastest signal speed along it.
void physical_flux(const Cell& c, float g, int dir, float f[3], float& speed) {
    float u = c.hu / c.h, v = c.hv / c.h;
    float pressure = 0.5f * g * c.h * c.h;
    float wave = std::sqrt(g * c.h);
    if (dir == 0) {
        f[0] = c.hu;
        f[1] = c.hu * u + pressure;
        f[2] = c.hv * u;
        speed = std::fabs(u) + wave;
    } else {
        f[0] = c.hv;
        f[1] = c.hu * v;
        f[2] = c.hv * v + pressure;
        speed = std::fabs(v) + wave;
    }
}

void rusanov(const Cell& left, const Cell& right, float g, int dir, float out[3]) {
    float fl[3], fr[3], sl, sr;
    physical_flux(left, g, dir, fl, sl);
    physical_flux(right, g, dir, fr, sr);
    float a = sl > sr ? sl : sr;
    float ul[3] = {left.h, left.hu, left.hv}, ur[3] = {right.h, right.hu, right.hv};
    for (int k = 0; k < 3; ++k) out[k] = 0.5f * (fl[k] + fr[k]) - 0.5f * a * (ur[k] - ul[k]);
}

}  // namespace

void shallow_water_rusanov(int nx, int ny, int steps, float g, float dt_dx, float dt_dy, const float* h,
                           const float* hu, const float* hv, float* work, float* h_out, float* hu_out,
                           float* hv_out) {
    (void)work;
    long long cells = static_cast<long long>(nx) * ny;
    std::vector<float> fx(3 * cells), fy(3 * cells), mid(3 * cells);
    const float *sh = h, *shu = hu, *shv = hv;
    for (int s = 0; s < steps; ++s) {
        bool last_lands_in_out = (steps - 1 - s) % 2 == 0;
        float* dh = last_lands_in_out ? h_out : mid.data();
        float* dhu = last_lands_in_out ? hu_out : mid.data() + cells;
        float* dhv = last_lands_in_out ? hv_out : mid.data() + 2 * cells;
        // fx[p]: flux through the west face of cell p; fy[p]: through its south face
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                long long p = static_cast<long long>(j) * nx + i;
                long long west = static_cast<long long>(j) * nx + (i == 0 ? nx - 1 : i - 1);
                long long south = static_cast<long long>(j == 0 ? ny - 1 : j - 1) * nx + i;
                Cell c{sh[p], shu[p], shv[p]};
                float f[3];
                rusanov(Cell{sh[west], shu[west], shv[west]}, c, g, 0, f);
                for (int k = 0; k < 3; ++k) fx[k * cells + p] = f[k];
                rusanov(Cell{sh[south], shu[south], shv[south]}, c, g, 1, f);
                for (int k = 0; k < 3; ++k) fy[k * cells + p] = f[k];
            }
        }
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                long long p = static_cast<long long>(j) * nx + i;
                long long east = static_cast<long long>(j) * nx + (i == nx - 1 ? 0 : i + 1);
                long long north = static_cast<long long>(j == ny - 1 ? 0 : j + 1) * nx + i;
                float u[3] = {sh[p], shu[p], shv[p]};
                float* dst[3] = {dh, dhu, dhv};
                for (int k = 0; k < 3; ++k) {
                    dst[k][p] = u[k] - dt_dx * (fx[k * cells + east] - fx[k * cells + p]) -
                                dt_dy * (fy[k * cells + north] - fy[k * cells + p]);
                }
            }
        }
        sh = dh;
        shu = dhu;
        shv = dhv;
    }
}
