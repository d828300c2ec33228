// steps: parallelize, shared_memory_tiling, constant_memory, fast_math_intrinsics, loop_unrolling
// 32x8 output tiles stage their (8+2r) x (32+2r) input window in shared memory; the spatial weights
// are tabulated once on the host into constant memory; the range weight uses __expf; the common
// radii are compiled as template instances so the window loops unroll fully.
#include <cmath>
#include <vector>

constexpr int BX = 32;
constexpr int BY = 8;
constexpr int MAX_TABLE_R = 16;
__constant__ float c_spatial[(2 * MAX_TABLE_R + 1) * (2 * MAX_TABLE_R + 1)];

template <int RT>
__global__ void __launch_bounds__(BX * BY) bilateral_tiled(int height, int width, int radius_rt,
                                                           const float* __restrict__ img, float range_coef,
                                                           float* __restrict__ out) {
    const int r = RT > 0 ? RT : radius_rt;
    const int side = 2 * r + 1;
    const int tw = BX + 2 * r, th = BY + 2 * r;
    extern __shared__ float tile[];
    const int x0 = blockIdx.x * BX - r, y0 = blockIdx.y * BY - r;
    for (int j = threadIdx.y * BX + threadIdx.x; j < tw * th; j += BX * BY) {
        int ty = j / tw, tx = j - ty * tw;
        int gy = y0 + ty, gx = x0 + tx;
        float v = 0.0f;
        if (gy >= 0 && gy < height && gx >= 0 && gx < width) v = img[static_cast<long long>(gy) * width + gx];
        tile[j] = v;
    }
    __syncthreads();
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    if (x >= width || y >= height) return;
    const float center = tile[(threadIdx.y + r) * tw + threadIdx.x + r];
    float weighted = 0.0f, total = 0.0f;
#pragma unroll
    for (int dy = -r; dy <= r; ++dy) {
        const bool row_ok = (y + dy >= 0) && (y + dy < height);
        const float* trow = tile + (threadIdx.y + r + dy) * tw + threadIdx.x + r;
#pragma unroll
        for (int dx = -r; dx <= r; ++dx) {
            const bool ok = row_ok && (x + dx >= 0) && (x + dx < width);
            float v = trow[dx];
            float diff = v - center;
            float w = c_spatial[(dy + r) * side + (dx + r)] * __expf(range_coef * diff * diff);
            w = ok ? w : 0.0f;
            weighted += w * v;
            total += w;
        }
    }
    out[static_cast<long long>(y) * width + x] = weighted / total;
}

// Radii beyond the constant table: weights computed on the fly from global memory.
__global__ void bilateral_large(int height, int width, int radius, const float* __restrict__ img, float space_coef,
                                float range_coef, float* __restrict__ out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float center = img[static_cast<long long>(y) * width + x];
    float weighted = 0.0f, total = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy) {
        int yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (int dx = -radius; dx <= radius; ++dx) {
            int xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            float v = img[static_cast<long long>(yy) * width + xx];
            float diff = v - center;
            float w = expf(space_coef * static_cast<float>(dx * dx + dy * dy)) * __expf(range_coef * diff * diff);
            weighted += w * v;
            total += w;
        }
    }
    out[static_cast<long long>(y) * width + x] = weighted / total;
}

template <int RT>
static void launch_tiled(int height, int width, int radius, const float* img, float range_coef, float* out) {
    dim3 block(BX, BY);
    dim3 grid((width + BX - 1) / BX, (height + BY - 1) / BY);
    size_t smem = static_cast<size_t>(BX + 2 * radius) * (BY + 2 * radius) * sizeof(float);
    if (smem > 48 * 1024) cudaFuncSetAttribute(bilateral_tiled<RT>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    bilateral_tiled<RT><<<grid, block, smem>>>(height, width, radius, img, range_coef, out);
}

void bilateral_filter(int height, int width, int radius, const float* img, float sigma_space, float sigma_range,
                      float* out) {
    if (height <= 0 || width <= 0) return;
    const float space_coef = -0.5f / (sigma_space * sigma_space);
    const float range_coef = -0.5f / (sigma_range * sigma_range);
    if (radius > MAX_TABLE_R) {
        dim3 block(16, 16);
        dim3 grid((width + 15) / 16, (height + 15) / 16);
        bilateral_large<<<grid, block>>>(height, width, radius, img, space_coef, range_coef, out);
        return;
    }
    const int side = 2 * radius + 1;
    std::vector<float> spatial(static_cast<size_t>(side) * side);
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx)
            spatial[(dy + radius) * side + (dx + radius)] = std::exp(space_coef * static_cast<float>(dx * dx + dy * dy));
    cudaMemcpyToSymbol(c_spatial, spatial.data(), spatial.size() * sizeof(float));
    switch (radius) {
        case 1: launch_tiled<1>(height, width, radius, img, range_coef, out); break;
        case 2: launch_tiled<2>(height, width, radius, img, range_coef, out); break;
        case 3: launch_tiled<3>(height, width, radius, img, range_coef, out); break;
        case 4: launch_tiled<4>(height, width, radius, img, range_coef, out); break;
        case 5: launch_tiled<5>(height, width, radius, img, range_coef, out); break;
        case 6: launch_tiled<6>(height, width, radius, img, range_coef, out); break;
        default: launch_tiled<0>(height, width, radius, img, range_coef, out); break;
    }
}
