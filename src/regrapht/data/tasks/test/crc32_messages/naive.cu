// One thread per message running the serial byte loop (Sarwate's table, built by a 256-thread kernel
// into global memory on every call).
__device__ unsigned int crc_table[256];

__global__ void build_table() {
    unsigned int r = threadIdx.x;
    for (int bit = 0; bit < 8; ++bit) r = (r >> 1) ^ (0xEDB88320u & (0u - (r & 1u)));
    crc_table[threadIdx.x] = r;
}

__global__ void crc_message(int count, int len, const unsigned char* data, unsigned int* crc) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= count) return;
    const unsigned char* message = data + (long long)m * len;
    unsigned int r = 0xFFFFFFFFu;
    for (int i = 0; i < len; ++i) r = crc_table[(r ^ message[i]) & 0xFFu] ^ (r >> 8);
    crc[m] = r ^ 0xFFFFFFFFu;
}

void crc32_messages(int count, int len, const unsigned char* data, unsigned int* crc) {
    if (count <= 0) return;
    build_table<<<1, 256>>>();
    crc_message<<<(count + 255) / 256, 256>>>(count, len, data, crc);
}
