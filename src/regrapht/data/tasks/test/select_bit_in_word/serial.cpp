// In-word select for succinct bit vectors: drop the set bits below the wanted rank, one at a time,
// then the answer is the lowest set bit that remains.
void select_bit_in_word(int n, const unsigned long long* words, const int* ranks, int* positions) {
    for (int i = 0; i < n; ++i) {
        unsigned long long rest = words[i];
        for (int dropped = 0; dropped < ranks[i] && rest != 0; ++dropped) rest &= rest - 1;
        positions[i] = rest != 0 ? __builtin_ctzll(rest) : -1;
    }
}
