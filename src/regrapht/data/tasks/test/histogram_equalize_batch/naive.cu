// Three kernels: one thread per pixel adds to its image's histogram in global memory; one thread
// per table entry sums its image's histogram up to its level; one thread per pixel looks itself up.
__global__ void equalize_histograms(long long total, long long P, const unsigned char* images, unsigned int* hist) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= total) return;
    atomicAdd(&hist[(p / P) * 256 + images[p]], 1u);
}

__global__ void equalize_tables(int nimg, long long P, const unsigned int* hist, unsigned char* lut) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;  // one table entry: image e / 256, level e % 256
    if (e >= nimg * 256) return;
    int i = e / 256, level = e % 256;
    const unsigned int* hi = hist + i * 256;
    long long cdf = 0, cdf_min = 0;
    for (int v = 0; v <= level; ++v) cdf += hi[v];
    for (int v = 0; v < 256 && cdf_min == 0; ++v) cdf_min += hi[v];
    long long den = P - cdf_min;
    long long num = cdf > cdf_min ? (cdf - cdf_min) * 255 : 0;
    lut[e] = den == 0 ? (unsigned char)level : (unsigned char)((num + den / 2) / den);
}

__global__ void equalize_map(long long total, long long P, const unsigned char* images, const unsigned char* lut,
                             unsigned char* out) {
    long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= total) return;
    out[p] = lut[(p / P) * 256 + images[p]];
}

void histogram_equalize_batch(int nimg, int h, int w, const unsigned char* images, unsigned char* out) {
    const long long P = (long long)h * w, total = P * nimg;
    if (total <= 0) return;
    static unsigned int* hist = nullptr;
    static unsigned char* lut = nullptr;
    static int capacity = 0;
    if (nimg > capacity) {
        if (hist) {
            cudaFree(hist);
            cudaFree(lut);
        }
        cudaMalloc(&hist, nimg * 256 * sizeof(unsigned int));
        cudaMalloc(&lut, nimg * 256);
        capacity = nimg;
    }
    cudaMemsetAsync(hist, 0, nimg * 256 * sizeof(unsigned int));
    const int blocks = (int)((total + 255) / 256);
    equalize_histograms<<<blocks, 256>>>(total, P, images, hist);
    equalize_tables<<<(nimg * 256 + 255) / 256, 256>>>(nimg, P, hist, lut);
    equalize_map<<<blocks, 256>>>(total, P, images, lut, out);
}
