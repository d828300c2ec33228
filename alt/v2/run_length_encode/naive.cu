// A direct parallel port: one thread per element flags run heads, a Hillis-Steele scan (one pass
// per power of two, one thread per element) numbers them, each head writes its value and start,
// and one thread per run takes its length from the next run's start.
__global__ void rle_flags(int n, const int* values, int* rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) rank[i] = (i == 0 || values[i] != values[i - 1]) ? 1 : 0;
}

__global__ void rle_scan_pass(int n, int d, const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + (i >= d ? in[i - d] : 0);
}

__global__ void rle_scatter(int n, const int* values, const int* rank, int* run_values, int* starts, int* num_runs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i == 0 || values[i] != values[i - 1]) {
        run_values[rank[i] - 1] = values[i];
        starts[rank[i] - 1] = i;
    }
    if (i == n - 1) *num_runs = rank[i];
}

__global__ void rle_lengths(int n, const int* starts, const int* num_runs, int* run_lengths) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int runs = *num_runs;
    if (r < runs) run_lengths[r] = (r + 1 < runs ? starts[r + 1] : n) - starts[r];
}

void run_length_encode(int n, const int* values, int* run_values, int* run_lengths, int* num_runs) {
    if (n <= 0) return;
    static int *rank_a = nullptr, *rank_b = nullptr, *starts = nullptr;
    static int capacity = 0;
    if (n > capacity) {
        if (rank_a) {
            cudaFree(rank_a);
            cudaFree(rank_b);
            cudaFree(starts);
        }
        cudaMalloc(&rank_a, static_cast<size_t>(n) * sizeof(int));
        cudaMalloc(&rank_b, static_cast<size_t>(n) * sizeof(int));
        cudaMalloc(&starts, static_cast<size_t>(n) * sizeof(int));
        capacity = n;
    }
    const int blocks = (n + 255) / 256;
    rle_flags<<<blocks, 256>>>(n, values, rank_a);
    int *in = rank_a, *out = rank_b;
    for (int d = 1; d < n; d *= 2) {
        rle_scan_pass<<<blocks, 256>>>(n, d, in, out);
        int* t = in;
        in = out;
        out = t;
    }
    rle_scatter<<<blocks, 256>>>(n, values, in, run_values, starts, num_runs);
    rle_lengths<<<blocks, 256>>>(n, starts, num_runs, run_lengths);
}
