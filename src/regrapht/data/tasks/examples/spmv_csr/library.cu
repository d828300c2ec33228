// Library baseline: cuSPARSE's generic SpMV on a CSR matrix (32-bit indices, float values). The
// output is cleared first so nothing depends on whether beta = 0 reads y.
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

void spmv_csr(int rows, int cols, int nnz, const int* row_ptr, const int* col_idx, const float* values,
              const float* x, float* y) {
    if (rows <= 0) return;
    cudaMemsetAsync(y, 0, sizeof(float) * rows);
    if (nnz <= 0 || cols <= 0) return;
    cusparseHandle_t handle = library_handle();
    cusparseSpMatDescr_t matrix;
    cusparseDnVecDescr_t vx, vy;
    cusparseCreateCsr(&matrix, rows, cols, nnz, (void*)row_ptr, (void*)col_idx, (void*)values,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateDnVec(&vx, cols, (void*)x, CUDA_R_32F);
    cusparseCreateDnVec(&vy, rows, y, CUDA_R_32F);
    const float one = 1.0f, zero = 0.0f;
    size_t bytes = 0;
    cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, vx, &zero, vy, CUDA_R_32F,
                            CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
    cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, vx, &zero, vy, CUDA_R_32F,
                 CUSPARSE_SPMV_ALG_DEFAULT, library_workspace(bytes > 0 ? bytes : 1));
    cusparseDestroyDnVec(vy);
    cusparseDestroyDnVec(vx);
    cusparseDestroySpMat(matrix);
}
