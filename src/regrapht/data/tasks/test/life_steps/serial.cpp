#include <cstddef>
#include <vector>

// Conway's Game of Life (B3/S23) for `steps` generations on a rows x cols grid whose outside is dead:
// the grid lives inside a frame of dead cells one wide, so every cell has eight neighbours to add.
void life_steps(int rows, int cols, int steps, const unsigned char* cells, unsigned char* out, unsigned char* work) {
    (void)work;  // the device versions' workspace
    const long long pitch = cols + 2;
    std::vector<unsigned char> now(static_cast<size_t>((rows + 2) * pitch), 0), next(now.size(), 0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) now[(r + 1) * pitch + c + 1] = cells[static_cast<long long>(r) * cols + c];
    for (int s = 0; s < steps; ++s) {
        for (int r = 1; r <= rows; ++r) {
            const unsigned char* above = &now[(r - 1) * pitch];
            const unsigned char* here = &now[r * pitch];
            const unsigned char* below = &now[(r + 1) * pitch];
            unsigned char* dest = &next[r * pitch];
            for (int c = 1; c <= cols; ++c) {
                const int alive = above[c - 1] + above[c] + above[c + 1] + here[c - 1] + here[c + 1] + below[c - 1] +
                                  below[c] + below[c + 1];
                dest[c] = (alive == 3 || (alive == 2 && here[c])) ? 1 : 0;
            }
        }
        now.swap(next);
    }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[static_cast<long long>(r) * cols + c] = now[(r + 1) * pitch + c + 1];
}
