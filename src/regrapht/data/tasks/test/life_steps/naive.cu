// One thread per cell and generation: each generation is a launch that reads the previous grid and
// writes the next, alternating between out and the workspace so that the last one lands in out.
__global__ void life_generation(int rows, int cols, const unsigned char* now, unsigned char* next) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    int alive = 0;
    for (int dr = -1; dr <= 1; ++dr) {
        for (int dc = -1; dc <= 1; ++dc) {
            const int rr = r + dr, cc = c + dc;
            if ((dr != 0 || dc != 0) && rr >= 0 && rr < rows && cc >= 0 && cc < cols)
                alive += now[(long long)rr * cols + cc];
        }
    }
    const unsigned char self = now[(long long)r * cols + c];
    next[(long long)r * cols + c] = (alive == 3 || (alive == 2 && self)) ? 1 : 0;
}

void life_steps(int rows, int cols, int steps, const unsigned char* cells, unsigned char* out, unsigned char* work) {
    if (rows <= 0 || cols <= 0) return;
    if (steps <= 0) {
        cudaMemcpy(out, cells, (size_t)rows * cols, cudaMemcpyDeviceToDevice);
        return;
    }
    const dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
    const unsigned char* now = cells;
    for (int s = 0; s < steps; ++s) {
        unsigned char* next = (steps - 1 - s) % 2 == 0 ? out : work;
        life_generation<<<grid, block>>>(rows, cols, now, next);
        now = next;
    }
}
