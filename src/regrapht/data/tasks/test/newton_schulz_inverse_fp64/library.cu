// Library baseline: cuBLAS DGEMM for both products of every iteration (T = 2I - A X as
// T := 2I, then T = -A X + T), with the O(n^2) start (the two norms and the scaled transpose)
// in small kernels of its own. Row-major C = P Q is column-major C^T = Q^T P^T: DGEMM(Q, P).
#include <cublas_v2.h>

static cublasHandle_t library_handle() {
    static cublasHandle_t handle = nullptr;
    if (handle == nullptr) cublasCreate(&handle);
    return handle;
}

__global__ void norms_by_thread(int n, const double* A, unsigned long long* norms) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * n) return;
    double s = 0.0;
    if (t < n) {
        for (int i = 0; i < n; ++i) s += fabs(A[(long long)i * n + t]);
    } else {
        for (int j = 0; j < n; ++j) s += fabs(A[(long long)(t - n) * n + j]);
    }
    atomicMax(&norms[t < n ? 0 : 1], (unsigned long long)__double_as_longlong(s));
}

__global__ void start_and_identity(int n, const double* A, const unsigned long long* norms, double* X0, double* T) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    double scale = __longlong_as_double((long long)norms[0]) * __longlong_as_double((long long)norms[1]);
    X0[(long long)i * n + j] = A[(long long)j * n + i] / scale;
    T[(long long)i * n + j] = i == j ? 2.0 : 0.0;
}

__global__ void two_identity(int n, double* T) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    T[(long long)i * n + j] = i == j ? 2.0 : 0.0;
}

void newton_schulz_inverse_fp64(int n, int iters, const double* A, double* X) {
    if (n <= 0) return;
    static double* work = nullptr;
    static long long capacity = 0;
    const long long nn = (long long)n * n;
    if (3 * nn + 2 > capacity) {
        if (work) cudaFree(work);
        cudaMalloc(&work, (3 * nn + 2) * sizeof(double));
        capacity = 3 * nn + 2;
    }
    double* T = work;
    double* Y[2] = {work + nn, work + 2 * nn};
    unsigned long long* norms = reinterpret_cast<unsigned long long*>(work + 3 * nn);
    cudaMemsetAsync(norms, 0, 2 * sizeof(unsigned long long));
    norms_by_thread<<<(2 * n + 127) / 128, 128>>>(n, A, norms);
    dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
    double* cur = iters > 0 ? Y[0] : X;
    start_and_identity<<<grid, block>>>(n, A, norms, cur, T);
    cublasHandle_t handle = library_handle();
    const double one = 1.0, minus_one = -1.0, zero = 0.0;
    for (int it = 0; it < iters; ++it) {
        double* next = it == iters - 1 ? X : Y[(it + 1) & 1];
        if (it > 0) two_identity<<<grid, block>>>(n, T);
        // T = -A cur + T  (row-major), i.e. T^T = -cur^T A^T + T^T
        cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &minus_one, cur, n, A, n, &one, T, n);
        // next = cur T
        cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, T, n, cur, n, &zero, next, n);
        cur = next;
    }
}
