// One thread per 3-byte group writes its 4 characters one byte at a time.
__device__ const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

__global__ void base64_kernel(int n, const unsigned char* in, unsigned char* out) {
    long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long i = 3 * g;
    if (i >= n) return;
    long long left = n - i;
    unsigned int group = static_cast<unsigned int>(in[i]) << 16;
    if (left > 1) group |= static_cast<unsigned int>(in[i + 1]) << 8;
    if (left > 2) group |= in[i + 2];
    unsigned char* o = out + 4 * g;
    o[0] = kAlphabet[(group >> 18) & 63];
    o[1] = kAlphabet[(group >> 12) & 63];
    o[2] = left > 1 ? kAlphabet[(group >> 6) & 63] : '=';
    o[3] = left > 2 ? kAlphabet[group & 63] : '=';
}

void base64_encode(int n, const unsigned char* in, unsigned char* out) {
    if (n <= 0) return;
    long long groups = (n + 2LL) / 3;
    base64_kernel<<<static_cast<unsigned int>((groups + 255) / 256), 256>>>(n, in, out);
}
