// Per-segment stable sort, as when sorting each row of a sparse matrix or each bucket of a spatial
// hash by key while keeping the original order of ties.
#include <algorithm>
#include <vector>

void segmented_sort_pairs(int n, int segments, const int* offsets, const unsigned int* keys, const int* values,
                          unsigned int* sorted_keys, int* sorted_values) {
    (void)n;
    std::vector<int> order;
    for (int s = 0; s < segments; ++s) {
        const int begin = offsets[s], end = offsets[s + 1];
        order.resize(end - begin);
        for (int i = begin; i < end; ++i) order[i - begin] = i;
        std::stable_sort(order.begin(), order.end(), [keys](int a, int b) { return keys[a] < keys[b]; });
        for (int i = begin; i < end; ++i) {
            sorted_keys[i] = keys[order[i - begin]];
            sorted_values[i] = values[order[i - begin]];
        }
    }
}
