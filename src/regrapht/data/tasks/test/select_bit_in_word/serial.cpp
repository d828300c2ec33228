// In-word select for succinct bit vectors: scan the bits and stop at the set bit of the wanted rank.
void select_bit_in_word(int n, const unsigned long long* words, const int* ranks, int* positions) {
    for (int i = 0; i < n; ++i) {
        const unsigned long long w = words[i];
        int remaining = ranks[i], found = -1;
        for (int b = 0; b < 64; ++b) {
            if ((w >> b) & 1ull) {
                if (remaining == 0) {
                    found = b;
                    break;
                }
                --remaining;
            }
        }
        positions[i] = found;
    }
}
