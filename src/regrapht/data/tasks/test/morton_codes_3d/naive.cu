// A direct port: one thread per point, bits interleaved one at a time.
__device__ unsigned int quantize(float c) {
    int q = static_cast<int>(c * 1024.0f);
    return static_cast<unsigned int>(q < 0 ? 0 : (q > 1023 ? 1023 : q));
}

__global__ void morton_kernel(int n, const float* xs, const float* ys, const float* zs, unsigned int* codes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int x = quantize(xs[i]), y = quantize(ys[i]), z = quantize(zs[i]);
    unsigned int code = 0;
    for (int k = 0; k < 10; ++k) {
        code |= ((x >> k) & 1u) << (3 * k + 2);
        code |= ((y >> k) & 1u) << (3 * k + 1);
        code |= ((z >> k) & 1u) << (3 * k);
    }
    codes[i] = code;
}

void morton_codes_3d(int n, const float* xs, const float* ys, const float* zs, unsigned int* codes) {
    if (n > 0) morton_kernel<<<(n + 255) / 256, 256>>>(n, xs, ys, zs, codes);
}
