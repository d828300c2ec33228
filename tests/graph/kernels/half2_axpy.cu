// regrapht-expect: parallelize, mixed_precision, vectorized_access, grid_stride_loop
#include <cuda_fp16.h>

// y = a*x + y on half data, two lanes per instruction through __half2.
__global__ void haxpy(int n2, __half a, const __half2* x, __half2* y) {
    __half2 a2 = __halves2half2(a, a);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
        y[i] = __hfma2(a2, x[i], y[i]);
    }
}
