// steps: work_decomposition, memory_coalescing, vectorized_access, warp_shuffle_reduction, kernel_fusion
// One launch per iteration. A warp computes two rows together (coalesced 16-byte loads of A, each
// load of the vector shared by both rows), squares its results and adds them to the iteration's
// norm with one atomic per block. The division by the norm is deferred into the next iteration's
// launch (it scales its dot products by 1/||w||), so an iteration is one pass over A.

constexpr int WARPS = 8;
constexpr int ROWS = 2;  // rows per warp

__device__ __forceinline__ double warp_sum(double x) {
    for (int off = 16; off > 0; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
    return x;
}

// s[0] = ||v0||^2; also zeroes the other two norm slots
__global__ void start_norm(int n, const double* __restrict__ v0, double* s) {
    __shared__ double part[32];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += v0[i] * v0[i];
    acc = warp_sum(acc);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
        acc = warp_sum(acc);
        if (threadIdx.x == 0) atomicAdd(s, acc);
    }
}

// w = (A u) / sqrt(s_in); s_out += ||w||^2 over this block's rows; s_clear (the slot the previous
// launch read) is zeroed for the next launch
template <bool VEC>
__global__ void __launch_bounds__(WARPS * 32) iterate(int n, const double* __restrict__ A, const double* __restrict__ u,
                                                      const double* s_in, double* s_out, double* s_clear,
                                                      double* __restrict__ w) {
    __shared__ double part[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = (blockIdx.x * WARPS + warp) * ROWS;
    if (blockIdx.x == 0 && threadIdx.x == 0) *s_clear = 0.0;
    const double scale = 1.0 / sqrt(*s_in);
    double acc[ROWS] = {};
    const double* r[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) r[k] = A + (long long)min(row0 + k, n - 1) * n;
    if (VEC) {
        const int pairs = n / 2;
        const double2* u2 = reinterpret_cast<const double2*>(u);
#pragma unroll 4
        for (int j = lane; j < pairs; j += 32) {
            const double2 x = __ldg(u2 + j);
#pragma unroll
            for (int k = 0; k < ROWS; ++k) {
                const double2 a = __ldg(reinterpret_cast<const double2*>(r[k]) + j);
                acc[k] = fma(a.x, x.x, fma(a.y, x.y, acc[k]));
            }
        }
    } else {
#pragma unroll 4
        for (int j = lane; j < n; j += 32) {
            const double x = __ldg(u + j);
#pragma unroll
            for (int k = 0; k < ROWS; ++k) acc[k] = fma(__ldg(r[k] + j), x, acc[k]);
        }
    }
    double sq = 0.0;
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
        const double t = warp_sum(acc[k]) * scale;
        if (row0 + k < n) {
            if (lane == 0) w[row0 + k] = t;
            sq += t * t;
        }
    }
    if (lane == 0) part[warp] = sq;
    __syncthreads();
    if (threadIdx.x < 32) {
        double b = threadIdx.x < WARPS ? part[threadIdx.x] : 0.0;
        b = warp_sum(b);
        if (threadIdx.x == 0) atomicAdd(s_out, b);
    }
}

__global__ void finish(int n, const double* __restrict__ w, const double* s, double* v, double* lambda) {
    const double norm = sqrt(*s), inv = 1.0 / norm;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v[i] = w[i] * inv;
    if (blockIdx.x == 0 && threadIdx.x == 0) *lambda = norm;
}

void perron_power_iteration_fp64(int n, int iters, const double* A, const double* v0, double* v,
                                 double* lambda, double* work) {
    if (n <= 0) return;
    double* buf[2] = {work, work + n};
    double* s = work + 2 * n;
    cudaMemsetAsync(s, 0, 3 * sizeof(double));
    start_norm<<<min((n + 255) / 256, 264), 256>>>(n, v0, s);
    const double* u = v0;
    const bool vec = n % 2 == 0;
    const int blocks = (n + WARPS * ROWS - 1) / (WARPS * ROWS);
    for (int it = 0; it < iters; ++it) {
        double* w = buf[it % 2];
        double* s_in = s + it % 3;
        double* s_out = s + (it + 1) % 3;
        double* s_clear = s + (it + 2) % 3;
        if (vec)
            iterate<true><<<blocks, WARPS * 32>>>(n, A, u, s_in, s_out, s_clear, w);
        else
            iterate<false><<<blocks, WARPS * 32>>>(n, A, u, s_in, s_out, s_clear, w);
        u = w;
    }
    finish<<<min((n + 255) / 256, 264), 256>>>(n, u, s + iters % 3, v, lambda);
}
