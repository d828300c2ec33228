#include <cstddef>
#include <vector>

// Depth-first search from every vertex not yet reached.
void componentCount(const int* A, size_t N, int* numComponents) {
    std::vector<char> seen(N, 0);
    std::vector<size_t> stack;
    int count = 0;
    for (size_t s = 0; s < N; ++s) {
        if (seen[s]) continue;
        ++count;
        seen[s] = 1;
        stack.push_back(s);
        while (!stack.empty()) {
            size_t v = stack.back();
            stack.pop_back();
            for (size_t w = 0; w < N; ++w) {
                if (A[v * N + w] && !seen[w]) {
                    seen[w] = 1;
                    stack.push_back(w);
                }
            }
        }
    }
    *numComponents = count;
}
