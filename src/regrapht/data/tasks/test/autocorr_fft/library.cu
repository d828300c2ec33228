// Library baseline: Wiener-Khinchin with cuFFT. One kernel zero-pads each signal to P (the power of
// two >= n + lags - 1, at least 2), a batched real-to-complex transform, one thread per bin for
// |X|^2, a batched complex-to-real transform, and one kernel that keeps the first lags values of
// each signal divided by P (cuFFT's inverse is unnormalized). Plans and buffers are kept between calls.
#include <cufft.h>

template <typename T>
static T* buffer_of(T** slot, size_t* capacity, size_t count) {
    if (count > *capacity) {
        if (*slot != nullptr) cudaFree(*slot);
        if (cudaMalloc(slot, count * sizeof(T)) != cudaSuccess) {
            *slot = nullptr;  // asked again next call; without one the call writes nothing, which the checks reject
            *capacity = 0;
        } else {
            *capacity = count;
        }
    }
    return *slot;
}

static void plans_for(int batch, int P, cufftHandle* forward, cufftHandle* inverse) {
    static cufftHandle f = 0, b = 0;
    static int planned_batch = -1, planned_P = -1;
    if (batch != planned_batch || P != planned_P) {
        if (planned_P > 0) {
            cufftDestroy(f);
            cufftDestroy(b);
        }
        int dims[1] = {P};
        cufftPlanMany(&f, 1, dims, nullptr, 1, P, nullptr, 1, P / 2 + 1, CUFFT_R2C, batch);
        cufftPlanMany(&b, 1, dims, nullptr, 1, P / 2 + 1, nullptr, 1, P, CUFFT_C2R, batch);
        cufftSetStream(f, 0);
        cufftSetStream(b, 0);
        planned_batch = batch;
        planned_P = P;
    }
    *forward = f;
    *inverse = b;
}

__global__ void zero_pad(int batch, int n, int P, const float* x, float* padded) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * P) return;
    const long long b = idx / P;
    const int i = (int)(idx - b * P);
    padded[idx] = i < n ? x[b * n + i] : 0.0f;
}

__global__ void power(long long count, cufftComplex* X) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) X[i] = make_cuComplex(X[i].x * X[i].x + X[i].y * X[i].y, 0.0f);
}

__global__ void keep_lags(int batch, int lags, int P, const float* full, float* r) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * lags) return;
    const long long b = idx / lags;
    r[idx] = full[b * P + (idx - b * lags)] * (1.0f / P);
}

void autocorr_fft(int batch, int n, int lags, const float* x, float* r) {
    if (batch <= 0) return;
    int P = 2;
    while (P < n + lags - 1) P <<= 1;
    static float* padded = nullptr;
    static size_t padded_capacity = 0;
    static cufftComplex* spectrum = nullptr;
    static size_t spectrum_capacity = 0;
    float* pad = buffer_of(&padded, &padded_capacity, (size_t)batch * P);
    cufftComplex* X = buffer_of(&spectrum, &spectrum_capacity, (size_t)batch * (P / 2 + 1));
    if (pad == nullptr || X == nullptr) return;
    cufftHandle forward, inverse;
    plans_for(batch, P, &forward, &inverse);
    const long long padded_count = (long long)batch * P, bins = (long long)batch * (P / 2 + 1);
    zero_pad<<<(unsigned)((padded_count + 255) / 256), 256>>>(batch, n, P, x, pad);
    cufftExecR2C(forward, pad, X);
    power<<<(unsigned)((bins + 255) / 256), 256>>>(bins, X);
    cufftExecC2R(inverse, X, pad);  // the padded input is no longer needed
    const long long out = (long long)batch * lags;
    keep_lags<<<(unsigned)((out + 255) / 256), 256>>>(batch, lags, P, pad, r);
}
