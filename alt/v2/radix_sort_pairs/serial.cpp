#include <vector>

// Stable LSD radix sort of (key, value) pairs, one byte per pass, as used to order particles by
// cell id or fragments by depth.
void radix_sort_pairs(int n, const unsigned int* keys, const int* values, unsigned int* sorted_keys,
                      int* sorted_values) {
    std::vector<unsigned int> k(keys, keys + n), k2(n);
    std::vector<int> v(values, values + n), v2(n);
    for (int shift = 0; shift < 32; shift += 8) {
        int count[257] = {0};
        for (int i = 0; i < n; ++i) count[((k[i] >> shift) & 0xFF) + 1] += 1;
        for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (int i = 0; i < n; ++i) {
            const int dst = count[(k[i] >> shift) & 0xFF]++;
            k2[dst] = k[i];
            v2[dst] = v[i];
        }
        k.swap(k2);
        v.swap(v2);
    }
    for (int i = 0; i < n; ++i) {
        sorted_keys[i] = k[i];
        sorted_values[i] = v[i];
    }
}
