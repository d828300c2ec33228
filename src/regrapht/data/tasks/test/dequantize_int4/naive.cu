// A direct port: one thread per output element, each reading its own byte, scale and zero point.
__global__ void dequantize_kernel(long long n, int group_size, const unsigned char* packed, const float* scales,
                                  const unsigned char* zeros, float* weights) {
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const long long g = i / group_size;
    const unsigned char byte = packed[i / 2];
    const int code = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
    weights[i] = static_cast<float>(code - static_cast<int>(zeros[g])) * scales[g];
}

void dequantize_int4(int groups, int group_size, const unsigned char* packed, const float* scales,
                     const unsigned char* zeros, float* weights) {
    long long n = static_cast<long long>(groups) * group_size;
    if (n > 0)
        dequantize_kernel<<<static_cast<unsigned int>((n + 255) / 256), 256>>>(n, group_size, packed, scales, zeros,
                                                                              weights);
}
