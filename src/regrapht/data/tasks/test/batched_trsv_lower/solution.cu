// steps: parallelize, work_decomposition, memory_coalescing, shared_memory_tiling, bank_conflict_avoidance
// One warp per system. The warp copies the lower triangle of L_k into shared memory with coalesced
// row sweeps (padded rows of n+1 floats so that the column reads of the solve hit distinct banks),
// then runs a column-oriented forward substitution: at step j every lane updates its own rows i > j
// with L[i][j] * x_j, so the 32 lanes work in parallel on the O(n^2) updates.
// Systems too large for shared memory use the same sweep reading L from global memory.

#define SMEM_MAX_N 96

__global__ void trsv_warp_smem(int batch, int n, const float* __restrict__ L, const float* __restrict__ b,
                               float* __restrict__ x) {
    extern __shared__ float smem[];
    int k = blockIdx.x;
    int lane = threadIdx.x;
    int ld = n + 1;
    float* sL = smem;             // n x (n+1)
    float* sr = smem + n * ld;    // residual / solution, n
    const float* Lk = L + (long long)k * n * n;
    for (int i = 0; i < n; ++i)
        for (int j = lane; j <= i; j += 32) sL[i * ld + j] = Lk[(long long)i * n + j];
    for (int i = lane; i < n; i += 32) sr[i] = b[(long long)k * n + i];
    __syncwarp();
    for (int j = 0; j < n; ++j) {
        float xj = sr[j] / sL[j * ld + j];
        __syncwarp();
        if (lane == 0) sr[j] = xj;
        for (int i = j + 1 + lane; i < n; i += 32) sr[i] -= sL[i * ld + j] * xj;
        __syncwarp();
    }
    for (int i = lane; i < n; i += 32) x[(long long)k * n + i] = sr[i];
}

__global__ void trsv_warp_global(int batch, int n, const float* __restrict__ L, const float* __restrict__ b,
                                 float* __restrict__ x) {
    int k = blockIdx.x;
    int lane = threadIdx.x;
    const float* Lk = L + (long long)k * n * n;
    float* xk = x + (long long)k * n;
    for (int i = lane; i < n; i += 32) xk[i] = b[(long long)k * n + i];
    __syncwarp();
    for (int j = 0; j < n; ++j) {
        float xj = xk[j] / Lk[(long long)j * n + j];
        __syncwarp();
        if (lane == 0) xk[j] = xj;
        for (int i = j + 1 + lane; i < n; i += 32) xk[i] -= Lk[(long long)i * n + j] * xj;
        __syncwarp();
    }
}

void batched_trsv_lower(int batch, int n, const float* L, const float* b, float* x) {
    if (batch <= 0 || n <= 0) return;
    if (n <= SMEM_MAX_N) {
        size_t bytes = sizeof(float) * ((size_t)n * (n + 1) + n);
        trsv_warp_smem<<<batch, 32, bytes>>>(batch, n, L, b, x);
    } else {
        trsv_warp_global<<<batch, 32>>>(batch, n, L, b, x);
    }
}
