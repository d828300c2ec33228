// Luby rounds with fixed priorities: each round one kernel puts every undecided vertex whose
// undecided neighbours all have lower priority into the set, and a second kernel takes the
// undecided neighbours of set vertices out; the host repeats rounds until none is undecided.
constexpr int kUndecided = 0, kIn = 1, kOut = 2;

__global__ void mis_init(int vertices, int* state) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) state[v] = kUndecided;
}

__global__ void mis_select(int vertices, const int* row_ptr, const int* col_idx, const int* priority, int* state) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || state[v] != kUndecided) return;
    const int pv = priority[v];
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        const int u = col_idx[e];
        const int su = state[u];
        if (su == kIn || (su == kUndecided && priority[u] > pv)) return;
    }
    state[v] = kIn;
}

__global__ void mis_exclude(int vertices, const int* row_ptr, const int* col_idx, int* state, int* undecided) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= vertices || state[v] != kUndecided) return;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        if (state[col_idx[e]] == kIn) {
            state[v] = kOut;
            return;
        }
    }
    *undecided = 1;
}

__global__ void mis_write(int vertices, const int* state, int* in_set) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < vertices) in_set[v] = state[v] == kIn ? 1 : 0;
}

void mis_priority(int vertices, int edges, const int* row_ptr, const int* col_idx, const int* priority,
                  int* in_set) {
    (void)edges;
    if (vertices <= 0) return;
    static int *state = nullptr, *undecided = nullptr;
    static int capacity = 0;
    if (vertices > capacity) {
        if (state) cudaFree(state);
        cudaMalloc(&state, static_cast<size_t>(vertices) * sizeof(int));
        capacity = vertices;
    }
    if (!undecided) cudaMalloc(&undecided, sizeof(int));
    const int blocks = (vertices + 255) / 256;
    mis_init<<<blocks, 256>>>(vertices, state);
    for (int flag = 1; flag;) {
        flag = 0;
        cudaMemcpy(undecided, &flag, sizeof(int), cudaMemcpyHostToDevice);
        mis_select<<<blocks, 256>>>(vertices, row_ptr, col_idx, priority, state);
        mis_exclude<<<blocks, 256>>>(vertices, row_ptr, col_idx, state, undecided);
        cudaMemcpy(&flag, undecided, sizeof(int), cudaMemcpyDeviceToHost);
    }
    mis_write<<<blocks, 256>>>(vertices, state, in_set);
}
