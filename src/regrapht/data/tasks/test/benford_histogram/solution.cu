// steps: atomic_privatization, lookup_table
// The bin of a positive amount is a non-decreasing step function of the amount (each rounded
// division or multiplication by 10 is monotone, and a larger decade always outranks any digit of a
// smaller one, including the digit 10 that 0.99999994 * 10 rounds to, which the reference counts as
// the next decade's 1), and a positive float's bits order like its value. So a table indexed by the
// top 12 bits of the amount (exponent and 4 mantissa bits: 4096 segments, 1/16 of a binade each)
// gives each segment's bin at its low end, at its high end, and the bit pattern where it steps from
// one to the other. Decade and digit boundaries are at least a tenth of a binade apart, so a segment
// holds at most one step; the builder checks that and marks a segment with more for the reference
// loop, so the table never has to be trusted. Classifying an amount is one shared-memory read and a
// compare, where the loop cost up to 16 divergent IEEE divisions per warp. The table depends only
// on the float format: it is built once, by the reference's own loop on the GPU. Each block keeps
// 144 private counters in shared memory and adds them to the histogram with one atomic per bin;
// each thread loads four amounts before classifying any, to keep enough reads in flight.
constexpr int kBins = 144;
constexpr int kSegments = 4096;   // bits >> 19 of a non-negative float
constexpr int kThreads = 512;
constexpr unsigned kNoStep = 0xFFFFFFFFu;
constexpr unsigned kLoopFlag = 1u << 16;

// The reference's classification of v > 0: -1 below decade -8, 144 at or above decade 8, else the bin.
__device__ int code_of(float v) {
    int e = 0;
    while (v >= 10.0f && e < 8) {
        v /= 10.0f;
        ++e;
    }
    while (v < 1.0f && e >= -8) {
        v *= 10.0f;
        --e;
    }
    if (e < -8) return -1;
    if (e >= 8) return kBins;
    return (e + 8) * 9 + (static_cast<int>(v) - 1);
}

// Per segment: .x the first bit pattern with the high code (kNoStep when the segment has one code),
// .y = (low code + 1) | (high code + 1) << 8, plus kLoopFlag when the segment steps more than once.
__device__ uint2 g_table[kSegments];

__global__ void build_table() {
    const unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= kSegments) return;
    const unsigned lo = s == 0 ? 1u : s << 19, hi = (s << 19) | 0x7FFFFu;
    if (s >= 0xFF0u) {  // +inf (NaN is filtered before the lookup): above every decade
        g_table[s] = make_uint2(kNoStep, (kBins + 1) | ((kBins + 1) << 8));
        return;
    }
    const int c_lo = code_of(__uint_as_float(lo)), c_hi = code_of(__uint_as_float(hi));
    unsigned step = kNoStep, flag = 0;
    if (c_lo != c_hi) {
        unsigned a = lo + 1, b = hi;  // the first pattern in (lo, hi] whose code is not c_lo
        while (a < b) {
            const unsigned mid = a + (b - a) / 2;
            if (code_of(__uint_as_float(mid)) != c_lo) b = mid;
            else a = mid + 1;
        }
        step = a;
        if (code_of(__uint_as_float(a)) != c_hi) flag = kLoopFlag;
    }
    g_table[s] = make_uint2(step, (unsigned)(c_lo + 1) | ((unsigned)(c_hi + 1) << 8) | flag);
}

__device__ __forceinline__ void count(float v, const uint2* table, unsigned int* local) {
    if (!(v > 0.0f)) return;
    const unsigned bits = __float_as_uint(v);
    const uint2 ent = table[bits >> 19];
    int code;
    if (ent.y & kLoopFlag) code = code_of(v);
    else code = (int)((bits >= ent.x ? ent.y >> 8 : ent.y) & 0xFFu) - 1;
    if (code >= 0 && code < kBins) atomicAdd(&local[code], 1u);
}

__global__ void __launch_bounds__(kThreads) benford_private(int n, const float* __restrict__ amounts,
                                                            unsigned int* __restrict__ counts) {
    __shared__ uint2 table[kSegments];
    __shared__ unsigned int local[kBins];
    for (int s = threadIdx.x; s < kSegments; s += blockDim.x) table[s] = g_table[s];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float a = amounts[i], b = amounts[i + stride], c = amounts[i + 2 * stride], d = amounts[i + 3 * stride];
        count(a, table, local);
        count(b, table, local);
        count(c, table, local);
        count(d, table, local);
    }
    for (; i < n; i += stride) count(amounts[i], table, local);
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x)
        if (local[b]) atomicAdd(&counts[b], local[b]);
}

void benford_histogram(int n, const float* amounts, unsigned int* counts) {
    cudaMemsetAsync(counts, 0, kBins * sizeof(unsigned int), 0);
    if (n <= 0) return;
    static int max_blocks = 0;
    if (max_blocks == 0) {
        build_table<<<kSegments / 256, 256>>>();
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, benford_private, kThreads, 0);
        max_blocks = sms * (per_sm > 0 ? per_sm : 1);
    }
    int blocks = (n + kThreads - 1) / kThreads;
    if (blocks > max_blocks) blocks = max_blocks;
    benford_private<<<blocks, kThreads>>>(n, amounts, counts);
}
