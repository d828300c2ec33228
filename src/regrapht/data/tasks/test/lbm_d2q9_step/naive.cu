__constant__ int c_cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int c_cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ int c_opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
__constant__ float c_w[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};

// Collision: one thread per cell, post-collision populations into a temporary lattice.
__global__ void collide_kernel(int ny, int nx, const float* f, const unsigned char* solid, float omega, float* post,
                               float* rho, float* ux, float* uy) {
    long long cell = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (cell >= static_cast<long long>(ny) * nx) return;
    const float* fc = f + 9 * cell;
    float* pc = post + 9 * cell;
    float density = 0.0f, jx = 0.0f, jy = 0.0f;
    for (int q = 0; q < 9; ++q) {
        density += fc[q];
        jx += c_cx[q] * fc[q];
        jy += c_cy[q] * fc[q];
    }
    if (solid[cell]) {
        rho[cell] = density;
        ux[cell] = 0.0f;
        uy[cell] = 0.0f;
        for (int q = 0; q < 9; ++q) pc[q] = fc[c_opp[q]];
    } else {
        float vx = jx / density, vy = jy / density;
        rho[cell] = density;
        ux[cell] = vx;
        uy[cell] = vy;
        float usq = vx * vx + vy * vy;
        for (int q = 0; q < 9; ++q) {
            float eu = c_cx[q] * vx + c_cy[q] * vy;
            float feq = c_w[q] * density * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * usq);
            pc[q] = fc[q] - omega * (fc[q] - feq);
        }
    }
}

// Streaming: one thread per cell pushes its 9 populations to the neighbours.
__global__ void stream_kernel(int ny, int nx, const float* post, float* f_out) {
    long long cell = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (cell >= static_cast<long long>(ny) * nx) return;
    int y = static_cast<int>(cell / nx), x = static_cast<int>(cell % nx);
    for (int q = 0; q < 9; ++q) {
        int xn = (x + c_cx[q] + nx) % nx;
        int yn = (y + c_cy[q] + ny) % ny;
        f_out[9 * (static_cast<long long>(yn) * nx + xn) + q] = post[9 * cell + q];
    }
}

void lbm_d2q9_step(int ny, int nx, const float* f, const unsigned char* solid, float omega, float* f_out, float* rho,
                   float* ux, float* uy) {
    long long cells = static_cast<long long>(ny) * nx;
    if (cells <= 0) return;
    float* post = nullptr;
    cudaMalloc(&post, 9 * cells * sizeof(float));
    int blocks = static_cast<int>((cells + 255) / 256);
    collide_kernel<<<blocks, 256>>>(ny, nx, f, solid, omega, post, rho, ux, uy);
    stream_kernel<<<blocks, 256>>>(ny, nx, post, f_out);
    cudaFree(post);
}
