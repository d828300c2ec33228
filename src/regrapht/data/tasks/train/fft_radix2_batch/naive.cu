#include <cuComplex.h>

// The serial algorithm's structure, one kernel per pass: a bit-reversal scatter, then one launch
// per butterfly stage with a thread per butterfly (batch * n/2 of them), working in place in X.
__global__ void bit_reverse_copy(int batch, int n, int bits, const cuFloatComplex* x, cuFloatComplex* X) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * n) return;
    long long b = idx / n;
    int t = (int)(idx - b * n);
    int r = bits == 0 ? 0 : (int)(__brev((unsigned)t) >> (32 - bits));
    X[b * n + r] = x[idx];
}

__global__ void butterfly_stage(int batch, int n, int len, cuFloatComplex* X) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int half = len / 2;
    if (idx >= (long long)batch * (n / 2)) return;
    long long b = idx / (n / 2);
    int q = (int)(idx - b * (n / 2));  // butterfly index within the signal
    int j = q % half;
    int s = (q / half) * len;
    float wr, wi;
    sincospif(-2.0f * j / len, &wi, &wr);
    cuFloatComplex* sig = X + b * n;
    cuFloatComplex a = sig[s + j], c = sig[s + j + half];
    float tr = wr * c.x - wi * c.y;
    float ti = wr * c.y + wi * c.x;
    sig[s + j] = make_cuFloatComplex(a.x + tr, a.y + ti);
    sig[s + j + half] = make_cuFloatComplex(a.x - tr, a.y - ti);
}

void fft_radix2_batch(int batch, int n, const cuFloatComplex* x, cuFloatComplex* X) {
    if (batch <= 0 || n <= 0) return;
    int bits = 0;
    while ((1 << bits) < n) ++bits;
    long long total = (long long)batch * n;
    bit_reverse_copy<<<(unsigned)((total + 255) / 256), 256>>>(batch, n, bits, x, X);
    long long butterflies = (long long)batch * (n / 2);
    for (int len = 2; len <= n; len <<= 1)
        butterfly_stage<<<(unsigned)((butterflies + 255) / 256), 256>>>(batch, n, len, X);
}
