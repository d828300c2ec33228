// steps: parallelize, constant_memory, shared_memory_tiling, kernel_fusion, thread_coarsening, loop_unrolling, register_tiling, read_only_cache
// One fused kernel: a 32-column x 64-row output tile loads its clamped input window (with a radius
// halo on every side) into shared memory, runs the horizontal pass for all window rows into a second
// shared buffer, then each thread produces 8 output rows of one column from it. The intermediate image
// never touches DRAM, the taps are broadcast from constant memory, and the tap loops are unrolled.
#include <cmath>
#include <vector>

constexpr int TX = 32;           // output columns per block (one per thread in x)
constexpr int TY = 64;           // output rows per block
constexpr int THREADS_Y = 8;     // threads in y; each computes TY / THREADS_Y rows
constexpr int ROWS_PER_THREAD = TY / THREADS_Y;
constexpr int MAX_RADIUS = 96;
constexpr size_t MAX_SMEM = 200 * 1024;
__constant__ float c_w[2 * MAX_RADIUS + 1];

__global__ void __launch_bounds__(TX * THREADS_Y) blur_fused(int height, int width, int radius,
                                                             const float* __restrict__ img, float* __restrict__ out) {
    extern __shared__ float smem[];
    const int win_w = TX + 2 * radius;
    const int win_h = TY + 2 * radius;
    float* in_s = smem;                  // win_h x win_w clamped input window
    float* h_s = smem + win_h * win_w;   // win_h x TX horizontally filtered rows
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    const int tid = threadIdx.y * TX + threadIdx.x;
    const int nthreads = TX * THREADS_Y;
    const int taps = 2 * radius + 1;

    for (int j = tid; j < win_h * win_w; j += nthreads) {
        int r = j / win_w, c = j - r * win_w;
        int gy = min(max(y0 - radius + r, 0), height - 1);
        int gx = min(max(x0 - radius + c, 0), width - 1);
        in_s[j] = __ldg(img + static_cast<long long>(gy) * width + gx);
    }
    __syncthreads();
    // Horizontal pass: thread x handles column x of every THREADS_Y-th window row.
    for (int r = threadIdx.y; r < win_h; r += THREADS_Y) {
        const float* src = in_s + r * win_w + threadIdx.x;
        float acc = 0.0f;
#pragma unroll 8
        for (int k = 0; k < taps; ++k) acc += c_w[k] * src[k];
        h_s[r * TX + threadIdx.x] = acc;
    }
    __syncthreads();
    // Vertical pass: ROWS_PER_THREAD consecutive output rows per thread, accumulated in registers.
    const int x = x0 + threadIdx.x;
    const int row0 = threadIdx.y * ROWS_PER_THREAD;
    float acc[ROWS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ROWS_PER_THREAD; ++i) acc[i] = 0.0f;
    for (int k = 0; k < taps; ++k) {
        const float wk = c_w[k];
        const float* src = h_s + (row0 + k) * TX + threadIdx.x;
#pragma unroll
        for (int i = 0; i < ROWS_PER_THREAD; ++i) acc[i] += wk * src[i * TX];
    }
    if (x < width) {
#pragma unroll
        for (int i = 0; i < ROWS_PER_THREAD; ++i) {
            const int y = y0 + row0 + i;
            if (y < height) out[static_cast<long long>(y) * width + x] = acc[i];
        }
    }
}

// Fallback for radii whose window does not fit in shared memory: two straightforward passes.
__global__ void blur_rows_global(int height, int width, int radius, const float* __restrict__ img,
                                 const float* __restrict__ w, float* __restrict__ tmp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k)
        acc += w[k + radius] * img[static_cast<long long>(y) * width + min(max(x + k, 0), width - 1)];
    tmp[static_cast<long long>(y) * width + x] = acc;
}

__global__ void blur_cols_global(int height, int width, int radius, const float* __restrict__ tmp,
                                 const float* __restrict__ w, float* __restrict__ out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k)
        acc += w[k + radius] * tmp[static_cast<long long>(min(max(y + k, 0), height - 1)) * width + x];
    out[static_cast<long long>(y) * width + x] = acc;
}

void gaussian_blur_large(int height, int width, int radius, const float* img, float sigma, float* out) {
    if (height <= 0 || width <= 0) return;
    const int taps = 2 * radius + 1;
    std::vector<float> w(taps);
    float total = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        w[k + radius] = std::exp(-static_cast<float>(k * k) / (2.0f * sigma * sigma));
        total += w[k + radius];
    }
    for (float& v : w) v /= total;

    const size_t smem = (static_cast<size_t>(TY + 2 * radius) * (TX + 2 * radius) +
                         static_cast<size_t>(TY + 2 * radius) * TX) * sizeof(float);
    if (radius <= MAX_RADIUS && smem <= MAX_SMEM) {
        cudaMemcpyToSymbol(c_w, w.data(), taps * sizeof(float));
        if (smem > 48 * 1024)
            cudaFuncSetAttribute(blur_fused, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        dim3 block(TX, THREADS_Y);
        dim3 grid((width + TX - 1) / TX, (height + TY - 1) / TY);
        blur_fused<<<grid, block, smem>>>(height, width, radius, img, out);
        return;
    }
    float* d_w = nullptr;
    float* tmp = nullptr;
    cudaMalloc(&d_w, taps * sizeof(float));
    cudaMalloc(&tmp, static_cast<size_t>(height) * width * sizeof(float));
    cudaMemcpy(d_w, w.data(), taps * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    blur_rows_global<<<grid, block>>>(height, width, radius, img, d_w, tmp);
    blur_cols_global<<<grid, block>>>(height, width, radius, tmp, d_w, out);
    cudaFree(tmp);
    cudaFree(d_w);
}
