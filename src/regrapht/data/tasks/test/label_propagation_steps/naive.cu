// One launch per step with a thread per vertex: the thread counts its neighbours' labels in a
// per-thread array of num_labels counters, then picks the most frequent (smallest on ties).
// Steps ping-pong between labels and work so the last one writes labels.
__global__ void vote(int vertices, int num_labels, const int* row_ptr, const int* col_idx, const int* current,
                     int* next) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices) return;
    const int first = row_ptr[v], last = row_ptr[v + 1];
    if (first == last) {
        next[v] = current[v];
        return;
    }
    int tally[256];
    for (int l = 0; l < num_labels; ++l) tally[l] = 0;
    for (int e = first; e < last; ++e) ++tally[current[col_idx[e]]];
    int winner = 0;
    for (int l = 1; l < num_labels; ++l)
        if (tally[l] > tally[winner]) winner = l;
    next[v] = winner;
}

void label_propagation_steps(int vertices, int edges, int steps, int num_labels, const int* row_ptr,
                             const int* col_idx, const int* labels0, int* labels, int* work) {
    (void)edges;
    if (vertices <= 0) return;
    const unsigned blocks = (unsigned)((vertices + 255) / 256);
    const int* current = labels0;
    for (int s = 0; s < steps; ++s) {
        int* next = (steps - 1 - s) % 2 == 0 ? labels : work;
        vote<<<blocks, 256>>>(vertices, num_labels, row_ptr, col_idx, current, next);
        current = next;
    }
}
