// Library baseline: cuBLAS SDOT of x with itself, the result written straight to device memory.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) {
        cublasCreate(&handle);
        cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
    }
    return handle;
}

void sum_of_squares(int n, const float* x, float* result) {
    cublasSdot(library_handle(), n, x, 1, x, 1, result);
}
