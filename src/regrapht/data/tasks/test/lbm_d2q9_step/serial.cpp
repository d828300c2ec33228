namespace {
const int CX[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
const int CY[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
const int OPP[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
const float W[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};
}  // namespace

void lbm_d2q9_step(int ny, int nx, const float* f, const unsigned char* solid, float omega, float* f_out, float* rho,
                   float* ux, float* uy) {
    for (int y = 0; y < ny; ++y) {
        for (int x = 0; x < nx; ++x) {
            const long long cell = static_cast<long long>(y) * nx + x;
            const float* fc = f + 9 * cell;
            float density = 0.0f, jx = 0.0f, jy = 0.0f;
            for (int q = 0; q < 9; ++q) {
                density += fc[q];
                jx += CX[q] * fc[q];
                jy += CY[q] * fc[q];
            }
            float post[9];
            if (solid[cell]) {
                rho[cell] = density;
                ux[cell] = 0.0f;
                uy[cell] = 0.0f;
                for (int q = 0; q < 9; ++q) post[q] = fc[OPP[q]];
            } else {
                const float vx = jx / density, vy = jy / density;
                rho[cell] = density;
                ux[cell] = vx;
                uy[cell] = vy;
                const float usq = vx * vx + vy * vy;
                for (int q = 0; q < 9; ++q) {
                    const float eu = CX[q] * vx + CY[q] * vy;
                    const float feq = W[q] * density * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * usq);
                    post[q] = fc[q] - omega * (fc[q] - feq);
                }
            }
            // push each post-collision population to the neighbour it moves to (periodic)
            for (int q = 0; q < 9; ++q) {
                const int xn = (x + CX[q] + nx) % nx;
                const int yn = (y + CY[q] + ny) % ny;
                f_out[9 * (static_cast<long long>(yn) * nx + xn) + q] = post[q];
            }
        }
    }
}
