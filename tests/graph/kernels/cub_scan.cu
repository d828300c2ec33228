// regrapht-expect: library_primitive
#include <cub/cub.cuh>

// Exclusive prefix sum through CUB's device-wide scan (two-phase temp-storage protocol).
void exclusive_scan(const int* d_in, int* d_out, int n) {
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n);
    cudaMalloc(&d_temp, temp_bytes);
    cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n);
    cudaFree(d_temp);
}
