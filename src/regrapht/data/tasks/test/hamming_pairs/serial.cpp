#include <bitset>
#include <cstdint>

void hamming_pairs(int pairs, const unsigned long long* a, const unsigned long long* b, int* distance) {
    constexpr int kWords = 16;
    for (int p = 0; p < pairs; ++p) {
        const unsigned long long* x = a + static_cast<long long>(p) * kWords;
        const unsigned long long* y = b + static_cast<long long>(p) * kWords;
        int d = 0;
        for (int w = 0; w < kWords; ++w) d += static_cast<int>(std::bitset<64>(x[w] ^ y[w]).count());
        distance[p] = d;
    }
}
