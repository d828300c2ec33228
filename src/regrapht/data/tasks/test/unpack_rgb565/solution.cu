// steps: parallelize, vectorized_access
// Each thread decodes four pixels: one 8-byte load of the packed values, one 16-byte store of the
// four RGBA words and one 16-byte store of the four luminances. Up to three trailing pixels are
// decoded one at a time.
__device__ __forceinline__ unsigned int decode(unsigned int p, float& y) {
    const unsigned int r5 = (p >> 11) & 0x1F, g6 = (p >> 5) & 0x3F, b5 = p & 0x1F;
    const unsigned int r = (r5 << 3) | (r5 >> 2);
    const unsigned int g = (g6 << 2) | (g6 >> 4);
    const unsigned int b = (b5 << 3) | (b5 >> 2);
    y = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    return r | (g << 8) | (b << 16) | (255u << 24);  // little-endian RGBA bytes
}

__global__ void unpack_quads(int quads, const uint2* __restrict__ packed, uint4* __restrict__ rgba,
                             float4* __restrict__ luma) {
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= quads) return;
    const uint2 w = __ldg(packed + q);
    uint4 px;
    float4 y;
    px.x = decode(w.x & 0xFFFFu, y.x);
    px.y = decode(w.x >> 16, y.y);
    px.z = decode(w.y & 0xFFFFu, y.z);
    px.w = decode(w.y >> 16, y.w);
    rgba[q] = px;
    luma[q] = y;
}

__global__ void unpack_tail(int start, int n, const unsigned short* packed, unsigned int* rgba, float* luma) {
    const int i = start + threadIdx.x;
    if (i < n) rgba[i] = decode(packed[i], luma[i]);
}

void unpack_rgb565(int n, const unsigned short* packed, unsigned char* rgba, float* luma) {
    if (n <= 0) return;
    const int quads = n / 4;
    if (quads > 0)
        unpack_quads<<<(quads + 255) / 256, 256>>>(quads, reinterpret_cast<const uint2*>(packed),
                                                   reinterpret_cast<uint4*>(rgba), reinterpret_cast<float4*>(luma));
    if (n % 4) unpack_tail<<<1, 32>>>(quads * 4, n, packed, reinterpret_cast<unsigned int*>(rgba), luma);
}
