__global__ void histogram_kernel(int n, const unsigned char* pixels, unsigned int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[pixels[i]], 1u);
}

void histogram_u8(int n, const unsigned char* pixels, unsigned int* bins) {
    cudaMemset(bins, 0, 256 * sizeof(unsigned int));
    if (n > 0) histogram_kernel<<<(n + 255) / 256, 256>>>(n, pixels, bins);
}
