// Library baseline: a batched cuFFT real-to-complex transform (the n/2 + 1 non-negative bins), one
// thread per bin of the full analytic spectrum (DC and Nyquist kept, positive bins doubled,
// negative bins zero), a batched complex-to-complex inverse transform in place, and one thread per
// sample for the modulus over n. The two complex buffers live in work; plans are kept between calls.
#include <cufft.h>

static void plans_for(int batch, int n, cufftHandle* forward, cufftHandle* inverse) {
    static cufftHandle f = 0, b = 0;
    static int planned_batch = -1, planned_n = -1;
    if (batch != planned_batch || n != planned_n) {
        if (planned_n > 0) {
            cufftDestroy(f);
            cufftDestroy(b);
        }
        int dims[1] = {n};
        cufftPlanMany(&f, 1, dims, nullptr, 1, n, nullptr, 1, n / 2 + 1, CUFFT_R2C, batch);
        cufftPlanMany(&b, 1, dims, nullptr, 1, n, nullptr, 1, n, CUFFT_C2C, batch);
        cufftSetStream(f, 0);
        cufftSetStream(b, 0);
        planned_batch = batch;
        planned_n = n;
    }
    *forward = f;
    *inverse = b;
}

__global__ void analytic_spectrum(int batch, int n, const cufftComplex* half, cufftComplex* full) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * n) return;
    const long long b = idx / n;
    const int k = (int)(idx - b * n);
    if (2 * k > n) {
        full[idx] = make_cuComplex(0.0f, 0.0f);
        return;
    }
    const float h = (k == 0 || 2 * k == n) ? 1.0f : 2.0f;
    const cufftComplex v = half[b * (n / 2 + 1) + k];
    full[idx] = make_cuComplex(h * v.x, h * v.y);
}

__global__ void modulus(long long total, int n, const cufftComplex* a, float* env) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) env[i] = sqrtf(a[i].x * a[i].x + a[i].y * a[i].y) / n;
}

__global__ void sample_modulus(long long total, const float* x, float* env) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) env[i] = fabsf(x[i]);
}

void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    const long long total = (long long)batch * n;
    if (total <= 0) return;
    if (n == 1) {  // cuFFT plans need n >= 2; the envelope of one sample is its modulus
        sample_modulus<<<(unsigned)((total + 255) / 256), 256>>>(total, x, env);
        return;
    }
    cufftComplex* half = reinterpret_cast<cufftComplex*>(work);              // batch * (n/2 + 1)
    cufftComplex* full = reinterpret_cast<cufftComplex*>(work) + total;      // batch * n
    cufftHandle forward, inverse;
    plans_for(batch, n, &forward, &inverse);
    cufftExecR2C(forward, const_cast<float*>(x), half);
    analytic_spectrum<<<(unsigned)((total + 255) / 256), 256>>>(batch, n, half, full);
    cufftExecC2C(inverse, full, full, CUFFT_INVERSE);
    modulus<<<(unsigned)((total + 255) / 256), 256>>>(total, n, full, env);
}
