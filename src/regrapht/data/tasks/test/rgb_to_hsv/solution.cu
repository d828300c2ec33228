// steps: parallelize, vectorized_access
// Each thread converts four pixels: their 12 bytes arrive as three aligned 32-bit loads and the three
// planes are written with one float4 store each (four pixels start at a multiple of 12 bytes).
__device__ __forceinline__ void hsv_of(int r, int g, int b, float& h, float& s, float& v) {
    int hi = max(r, max(g, b));
    int lo = min(r, min(g, b));
    int delta = hi - lo;
    h = 0.0f;
    if (delta > 0) {
        float d = static_cast<float>(delta);
        if (hi == r) {
            h = 60.0f * (static_cast<float>(g - b) / d);
            if (h < 0.0f) h += 360.0f;
        } else if (hi == g) {
            h = 60.0f * (static_cast<float>(b - r) / d + 2.0f);
        } else {
            h = 60.0f * (static_cast<float>(r - g) / d + 4.0f);
        }
    }
    s = hi > 0 ? static_cast<float>(delta) / static_cast<float>(hi) : 0.0f;
    v = static_cast<float>(hi) / 255.0f;
}

__global__ void rgb_to_hsv_vec4(int n, const unsigned char* __restrict__ rgb, float* __restrict__ hue,
                                float* __restrict__ sat, float* __restrict__ val) {
    long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long p0 = q * 4;
    if (p0 >= n) return;
    if (p0 + 4 <= n) {
        const unsigned int* words = reinterpret_cast<const unsigned int*>(rgb) + q * 3;
        unsigned int w0 = words[0], w1 = words[1], w2 = words[2];
        unsigned char bytes[12];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            bytes[k] = (w0 >> (8 * k)) & 0xFF;
            bytes[4 + k] = (w1 >> (8 * k)) & 0xFF;
            bytes[8 + k] = (w2 >> (8 * k)) & 0xFF;
        }
        float h[4], s[4], v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) hsv_of(bytes[3 * k], bytes[3 * k + 1], bytes[3 * k + 2], h[k], s[k], v[k]);
        reinterpret_cast<float4*>(hue)[q] = make_float4(h[0], h[1], h[2], h[3]);
        reinterpret_cast<float4*>(sat)[q] = make_float4(s[0], s[1], s[2], s[3]);
        reinterpret_cast<float4*>(val)[q] = make_float4(v[0], v[1], v[2], v[3]);
    } else {
        for (long long i = p0; i < n; ++i) {
            const unsigned char* px = rgb + 3 * i;
            hsv_of(px[0], px[1], px[2], hue[i], sat[i], val[i]);
        }
    }
}

void rgb_to_hsv(int n, const unsigned char* rgb, float* hue, float* sat, float* val) {
    if (n <= 0) return;
    long long quads = (static_cast<long long>(n) + 3) / 4;
    int blocks = static_cast<int>((quads + 255) / 256);
    rgb_to_hsv_vec4<<<blocks, 256>>>(n, rgb, hue, sat, val);
}
