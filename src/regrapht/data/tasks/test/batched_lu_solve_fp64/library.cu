// Library baseline: cuBLAS getrsBatched (no transpose, one right-hand side), in place on x after b
// is copied there. It takes arrays of matrix pointers, which a small kernel fills every call (the
// buffers may move between calls); the pointer arrays themselves are kept.
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

__global__ void fill_pointers(int batch, int n, const double* LU, double* x, const double** a_ptrs, double** b_ptrs) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    a_ptrs[k] = LU + (long long)k * n * n;
    b_ptrs[k] = x + (long long)k * n;
}

void batched_lu_solve_fp64(int batch, int n, const double* LU, const int* piv, const double* b, double* x) {
    if (batch <= 0 || n <= 0) return;
    // Two typed arrays rather than one void* buffer split in two: a reinterpret_cast from void** to
    // const double** casts away qualifiers, which nvcc 13 rejects.
    static const double** a_ptrs = nullptr;
    static double** b_ptrs = nullptr;
    static int capacity = 0;
    if (batch > capacity) {
        if (a_ptrs) cudaFree(a_ptrs);
        if (b_ptrs) cudaFree(b_ptrs);
        cudaMalloc(&a_ptrs, (size_t)batch * sizeof(const double*));
        cudaMalloc(&b_ptrs, (size_t)batch * sizeof(double*));
        capacity = batch;
    }
    fill_pointers<<<(batch + 255) / 256, 256>>>(batch, n, LU, x, a_ptrs, b_ptrs);
    cudaMemcpyAsync(x, b, (size_t)batch * n * sizeof(double), cudaMemcpyDeviceToDevice);
    int info = 0;  // reports an invalid argument only; the factors are not checked
    cublasDgetrsBatched(library_handle(), CUBLAS_OP_N, n, 1, a_ptrs, n, piv, b_ptrs, n, &info, batch);
}
