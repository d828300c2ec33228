#include <cstdint>

void popcount_words(int n, const unsigned long long* words, unsigned char* ones, signed char* lowest) {
    for (int i = 0; i < n; ++i) {
        uint64_t w = words[i];
        int count = 0;
        for (uint64_t v = w; v; v &= v - 1) ++count;  // Kernighan: one step per set bit
        ones[i] = static_cast<unsigned char>(count);
        int low = -1;
        for (int b = 0; b < 64; ++b) {
            if ((w >> b) & 1ULL) {
                low = b;
                break;
            }
        }
        lowest[i] = static_cast<signed char>(low);
    }
}
