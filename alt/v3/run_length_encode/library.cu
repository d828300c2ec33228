// Library baseline: CUB's device-wide run-length encoding (unique values, run lengths, run count).
#include <cub/device/device_run_length_encode.cuh>

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

void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    if (n <= 0) return;
    size_t bytes = 0;
    cub::DeviceRunLengthEncode::Encode(nullptr, bytes, values, run_values, run_lengths, num_runs, n);
    cub::DeviceRunLengthEncode::Encode(library_workspace(bytes), bytes, values, run_values, run_lengths, num_runs, n);
}
