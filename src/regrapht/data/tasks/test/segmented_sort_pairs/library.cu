// Library baseline: CUB's device-wide stable segmented sort of key-value pairs (begin offsets are
// offsets[0 .. segments), end offsets offsets[1 .. segments]).
#include <cub/device/device_segmented_sort.cuh>

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

void segmented_sort_pairs(int n, int segments, const int* offsets, const unsigned int* keys, const int* values,
                          unsigned int* sorted_keys, int* sorted_values) {
    if (n <= 0 || segments <= 0) return;
    size_t bytes = 0;
    cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, keys, sorted_keys, values, sorted_values, n, segments,
                                              offsets, offsets + 1);
    cub::DeviceSegmentedSort::StableSortPairs(library_workspace(bytes), bytes, keys, sorted_keys, values,
                                              sorted_values, n, segments, offsets, offsets + 1);
}
