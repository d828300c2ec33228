// Library baseline: cuFFT's batched real-to-complex transform (out of place, which leaves the input
// unchanged), then one thread per bin for |X[k]|^2. The plan and the spectrum buffer are kept
// between calls, as an application would keep them.
#include <cufft.h>

static cufftComplex* spectrum_buffer(size_t count) {
    static cufftComplex* buffer = nullptr;
    static size_t capacity = 0;
    if (count > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        if (cudaMalloc(&buffer, count * sizeof(cufftComplex)) != cudaSuccess) {
            buffer = nullptr;  // asked again next call; without one the call writes nothing, which the checks reject
            capacity = 0;
        } else {
            capacity = count;
        }
    }
    return buffer;
}

static cufftHandle plan_for(int batch, int n) {
    static cufftHandle plan = 0;
    static int planned_batch = -1, planned_n = -1;
    if (batch != planned_batch || n != planned_n) {
        if (planned_n > 0) cufftDestroy(plan);
        int dims[1] = {n};
        cufftPlanMany(&plan, 1, dims, nullptr, 1, n, nullptr, 1, n / 2 + 1, CUFFT_R2C, batch);
        cufftSetStream(plan, 0);
        planned_batch = batch;
        planned_n = n;
    }
    return plan;
}

__global__ void bin_power(long long count, const cufftComplex* X, float* P) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) {
        const cufftComplex v = X[i];
        P[i] = v.x * v.x + v.y * v.y;
    }
}

__global__ void square_samples(int batch, const float* x, float* P) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < batch) P[i] = x[i] * x[i];
}

void frame_power_spectrum(int batch, int n, const float* x, float* P) {
    if (batch <= 0 || n <= 0) return;
    if (n == 1) {  // cuFFT plans need n >= 2; the DFT of one sample is the sample
        square_samples<<<(batch + 255) / 256, 256>>>(batch, x, P);
        return;
    }
    const long long count = (long long)batch * (n / 2 + 1);
    cufftComplex* X = spectrum_buffer((size_t)count);
    cufftExecR2C(plan_for(batch, n), const_cast<cufftReal*>(x), X);
    bin_power<<<(unsigned)((count + 255) / 256), 256>>>(count, X, P);
}
