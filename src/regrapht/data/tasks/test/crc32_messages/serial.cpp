#include <cstdint>

// CRC-32 as Ethernet, gzip and zlib compute it: the reflected polynomial 0xEDB88320, the register
// starting at all ones and inverted at the end. Sarwate's method: one 256-entry table of the
// register's change per byte.
static void build_table(uint32_t* table) {
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t r = b;
        for (int bit = 0; bit < 8; ++bit) r = (r >> 1) ^ (0xEDB88320u & (0u - (r & 1u)));
        table[b] = r;
    }
}

void crc32_messages(int count, int len, const unsigned char* data, unsigned int* crc) {
    uint32_t table[256];
    build_table(table);
    for (int m = 0; m < count; ++m) {
        const unsigned char* message = data + static_cast<long long>(m) * len;
        uint32_t r = 0xFFFFFFFFu;
        for (int i = 0; i < len; ++i) r = table[(r ^ message[i]) & 0xFFu] ^ (r >> 8);
        crc[m] = r ^ 0xFFFFFFFFu;
    }
}
