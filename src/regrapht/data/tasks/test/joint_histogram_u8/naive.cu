// A direct port: one thread per pixel, three global atomics.
__global__ void joint_kernel(int n, const unsigned char* img_a, const unsigned char* img_b, unsigned int* joint,
                             unsigned int* hist_a, unsigned int* hist_b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int a = img_a[i], b = img_b[i];
    atomicAdd(&joint[a * 256 + b], 1u);
    atomicAdd(&hist_a[a], 1u);
    atomicAdd(&hist_b[b], 1u);
}

void joint_histogram_u8(int n, const unsigned char* img_a, const unsigned char* img_b, unsigned int* joint,
                        unsigned int* hist_a, unsigned int* hist_b) {
    cudaMemset(joint, 0, 65536 * sizeof(unsigned int));
    cudaMemset(hist_a, 0, 256 * sizeof(unsigned int));
    cudaMemset(hist_b, 0, 256 * sizeof(unsigned int));
    if (n > 0) joint_kernel<<<(n + 255) / 256, 256>>>(n, img_a, img_b, joint, hist_a, hist_b);
}
