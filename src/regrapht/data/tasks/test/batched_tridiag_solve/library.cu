// Library baseline: cuSPARSE gtsv2StridedBatch (cyclic reduction, no pivoting), in place on x after
// b is copied there. It requires dl[0] = du[n-1] = 0 in each system, which the task guarantees.
#include <cusparse.h>

static cusparseHandle_t library_handle() {
    static cusparseHandle_t handle = nullptr;
    if (handle == nullptr) cusparseCreate(&handle);
    return handle;
}

static void* library_workspace(size_t bytes) {
    static void* buffer = nullptr;
    static size_t capacity = 0;
    if (bytes > capacity) {
        if (buffer != nullptr) cudaFree(buffer);
        if (cudaMalloc(&buffer, bytes) != cudaSuccess) {
            buffer = nullptr;  // asked again next call; without one the call writes nothing, which the checks reject
            capacity = 0;
        } else {
            capacity = bytes;
        }
    }
    return buffer;
}

// cuSPARSE's gtsv2 needs m >= 3: 1 x 1 and 2 x 2 systems are solved directly.
__global__ void tiny_systems(int batch, int n, const float* dl, const float* d, const float* du, const float* b,
                             float* x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    long long o = (long long)k * n;
    if (n == 1) {
        x[o] = b[o] / d[o];
        return;
    }
    float det = d[o] * d[o + 1] - du[o] * dl[o + 1];
    x[o] = (b[o] * d[o + 1] - du[o] * b[o + 1]) / det;
    x[o + 1] = (d[o] * b[o + 1] - dl[o + 1] * b[o]) / det;
}

void batched_tridiag_solve(int batch, int n, const float* dl, const float* d, const float* du, const float* b,
                           float* x, float* work) {
    (void)work;
    if (batch <= 0 || n <= 0) return;
    if (n < 3) {
        tiny_systems<<<(batch + 255) / 256, 256>>>(batch, n, dl, d, du, b, x);
        return;
    }
    cudaMemcpyAsync(x, b, (size_t)batch * n * sizeof(float), cudaMemcpyDeviceToDevice);
    cusparseHandle_t handle = library_handle();
    size_t bytes = 0;
    cusparseSgtsv2StridedBatch_bufferSizeExt(handle, n, dl, d, du, x, batch, n, &bytes);
    cusparseSgtsv2StridedBatch(handle, n, dl, d, du, x, batch, n, library_workspace(bytes > 0 ? bytes : 1));
}
