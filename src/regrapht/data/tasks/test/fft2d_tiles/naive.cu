#include <cuComplex.h>

// The DFT is separable: a thread per element of the row transform (a sum along its row, into
// work), then a thread per output element (a sum along its column of work). Twiddle angles are
// reduced exactly ((u * r) mod s) before sincospif.
__global__ void dft_along_rows(int batch, int s, const cuFloatComplex* x, cuFloatComplex* rows) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * s * s) return;
    const int v = (int)(idx % s);
    const cuFloatComplex* line = x + (idx - v);  // this element's row
    float re = 0.0f, im = 0.0f;
    for (int c = 0; c < s; ++c) {
        float sn, cs;
        sincospif(-2.0f * (float)((v * c) % s) / s, &sn, &cs);
        re += line[c].x * cs - line[c].y * sn;
        im += line[c].x * sn + line[c].y * cs;
    }
    rows[idx] = make_cuFloatComplex(re, im);
}

__global__ void dft_along_columns(int batch, int s, const cuFloatComplex* rows, cuFloatComplex* X) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * s * s) return;
    const long long area = (long long)s * s;
    const long long tile = idx / area;
    const int u = (int)((idx % area) / s), v = (int)(idx % s);
    const cuFloatComplex* column = rows + tile * area + v;
    float re = 0.0f, im = 0.0f;
    for (int r = 0; r < s; ++r) {
        float sn, cs;
        sincospif(-2.0f * (float)((u * r) % s) / s, &sn, &cs);
        const cuFloatComplex a = column[(long long)r * s];
        re += a.x * cs - a.y * sn;
        im += a.x * sn + a.y * cs;
    }
    X[idx] = make_cuFloatComplex(re, im);
}

void fft2d_tiles(int batch, int s, const cuFloatComplex* x, cuFloatComplex* X, float* work) {
    const long long total = (long long)batch * s * s;
    if (total <= 0) return;
    cuFloatComplex* rows = reinterpret_cast<cuFloatComplex*>(work);
    const unsigned blocks = (unsigned)((total + 255) / 256);
    dft_along_rows<<<blocks, 256>>>(batch, s, x, rows);
    dft_along_columns<<<blocks, 256>>>(batch, s, rows, X);
}
