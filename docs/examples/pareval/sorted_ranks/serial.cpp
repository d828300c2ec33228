#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

// Stable: among equal values, the earlier one ranks first.
void ranks(const float* x, size_t* ranks, size_t N) {
    std::vector<size_t> order(N);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [x](size_t a, size_t b) { return x[a] < x[b]; });
    for (size_t r = 0; r < N; ++r) ranks[order[r]] = r;
}
