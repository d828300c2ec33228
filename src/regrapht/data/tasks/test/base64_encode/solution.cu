// steps: vectorized_access, thread_coarsening
// Each thread encodes four 3-byte groups: it reads their 12 input bytes as three aligned 32-bit words
// (12 * t is a multiple of 4) and writes their 16 output characters with one 16-byte store (out +
// 16 * t is 16-byte aligned), where a thread per group makes three byte loads and four byte stores.
// The last thread, whose groups run past n, encodes what is left group by group, with padding.
__device__ const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The four characters of a group (its three bytes in the low 24 bits, first byte highest), packed
// little-endian into a word: the first character is the word's first byte.
__device__ __forceinline__ unsigned int encode(unsigned int group) {
    return static_cast<unsigned int>(static_cast<unsigned char>(kAlphabet[(group >> 18) & 63])) |
           static_cast<unsigned int>(static_cast<unsigned char>(kAlphabet[(group >> 12) & 63])) << 8 |
           static_cast<unsigned int>(static_cast<unsigned char>(kAlphabet[(group >> 6) & 63])) << 16 |
           static_cast<unsigned int>(static_cast<unsigned char>(kAlphabet[group & 63])) << 24;
}

// Bytes a, b, c as a group's 24 bits, a highest.
__device__ __forceinline__ unsigned int group_of(unsigned int a, unsigned int b, unsigned int c) {
    return (a & 0xFFu) << 16 | (b & 0xFFu) << 8 | (c & 0xFFu);
}

__global__ void base64_wide(int n, const unsigned char* __restrict__ in, unsigned char* __restrict__ out) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long i = 12 * t;
    if (i >= n) return;
    if (i + 12 <= n) {
        const unsigned int* w = reinterpret_cast<const unsigned int*>(in) + 3 * t;
        const unsigned int w0 = w[0], w1 = w[1], w2 = w[2];  // little-endian: w0's low byte is in[i]
        uint4 chars;
        chars.x = encode(group_of(w0, w0 >> 8, w0 >> 16));
        chars.y = encode(group_of(w0 >> 24, w1, w1 >> 8));
        chars.z = encode(group_of(w1 >> 16, w1 >> 24, w2));
        chars.w = encode(group_of(w2 >> 8, w2 >> 16, w2 >> 24));
        reinterpret_cast<uint4*>(out)[t] = chars;
        return;
    }
    unsigned int* words = reinterpret_cast<unsigned int*>(out);
    for (long long g = 4 * t; 3 * g < n; ++g) {  // at most four groups, the last one partial
        const long long j = 3 * g, left = n - j;
        if (left >= 3) {
            words[g] = encode(group_of(in[j], in[j + 1], in[j + 2]));
        } else {
            const unsigned int chars = encode(group_of(in[j], left > 1 ? in[j + 1] : 0, 0));
            // '=' (0x3D) pads the characters the missing bytes would have made
            words[g] = left > 1 ? (chars & 0x00FFFFFFu) | 0x3D000000u : (chars & 0x0000FFFFu) | 0x3D3D0000u;
        }
    }
}

void base64_encode(int n, const unsigned char* in, unsigned char* out) {
    if (n <= 0) return;
    const long long threads = (n + 11LL) / 12;
    base64_wide<<<static_cast<unsigned int>((threads + 255) / 256), 256>>>(n, in, out);
}
