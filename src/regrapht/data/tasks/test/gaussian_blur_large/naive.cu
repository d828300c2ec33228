#include <cmath>
#include <vector>

__global__ void blur_rows(int height, int width, int radius, const float* img, const float* w, float* tmp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const float* row = img + static_cast<long long>(y) * width;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        int xx = min(max(x + k, 0), width - 1);
        acc += w[k + radius] * row[xx];
    }
    tmp[static_cast<long long>(y) * width + x] = acc;
}

__global__ void blur_cols(int height, int width, int radius, const float* tmp, const float* w, float* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        int yy = min(max(y + k, 0), height - 1);
        acc += w[k + radius] * tmp[static_cast<long long>(yy) * width + x];
    }
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
    float* d_w = nullptr;
    float* tmp = nullptr;
    cudaMalloc(&d_w, taps * sizeof(float));
    cudaMalloc(&tmp, static_cast<size_t>(height) * width * sizeof(float));
    cudaMemcpy(d_w, w.data(), taps * sizeof(float), cudaMemcpyHostToDevice);
    dim3 block(32, 8);
    dim3 grid((width + 31) / 32, (height + 7) / 8);
    blur_rows<<<grid, block>>>(height, width, radius, img, d_w, tmp);
    blur_cols<<<grid, block>>>(height, width, radius, tmp, d_w, out);
    cudaFree(tmp);
    cudaFree(d_w);
}
