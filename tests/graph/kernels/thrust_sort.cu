// regrapht-expect: library_primitive
#include <thrust/device_ptr.h>
#include <thrust/sort.h>

void sort_keys(unsigned int* d_keys, int n) {
    thrust::device_ptr<unsigned int> begin(d_keys);
    thrust::sort(begin, begin + n);
}
