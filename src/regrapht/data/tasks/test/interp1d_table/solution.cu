// steps: shared_memory_tiling, vectorized_access
// A bucket index narrows each search to a knot or two, and the tables a query reads are packed so
// that it reads few of them. The range [knot_x[0], knot_x[knots-1]] is cut into B = knots equal
// buckets. The bucket of a value is one subtraction, one multiply and a truncation, the same float
// function for knots and queries, so it never decreases as the value grows: every knot in a lower
// bucket than q is < q. So if first[b] is the first knot whose bucket is >= b, the answer j
// (knot_x[j] <= q < knot_x[j+1]) is at least start[b] = first[b] - 1 (or 0), and a forward scan from
// there finds it (about one step for these tables; the scan is right whatever the bucket widths).
// A scan step reads one 4-byte knot_x word; the interpolation then reads segment j as one float4
// {x_j, y_j, x_j+1, y_j+1}. The earlier version read about nine scattered 4-byte shared words per
// query (two bucket bounds, a binary search, four knot values); with the bank conflicts of random
// reads (about 3.5 wavefronts a warp each) that is an estimated 0.25 ms of shared-memory issue at the
// bench size, above the 0.18 ms DRAM floor. This one reads about four words. The queries are read and
// the results written as float4, two per thread per loop trip, so each thread keeps 32 bytes of DRAM
// traffic in flight. Both tables are built by a small kernel on every call (they
// depend on the knots).
#include <cstdint>

constexpr int kThreads = 512;
constexpr int kMaxSharedBytes = 100 * 1024;  // two 512-thread blocks per SM

// The bucket of v in [x0, x_last]; monotone non-decreasing in v (a NaN from a degenerate scale
// falls in the last bucket, as every value then does).
__device__ __forceinline__ int bucket_of(float v, float x0, float inv, int buckets) {
    const float t = (v - x0) * inv;
    return t < (float)buckets ? (int)t : buckets - 1;
}

__device__ __forceinline__ float bucket_scale(const float* knot_x, int knots) {
    return (float)knots / (knot_x[knots - 1] - knot_x[0]);
}

// seg[j] for j < knots - 1; start[b] for b < knots: first[b] - 1 clamped to [0, knots - 2], where
// first[b] is the smallest j with bucket(knot_x[j]) >= b (knots when there is none). Needs knots >= 2.
__global__ void build_tables(int knots, const float* __restrict__ knot_x, const float* __restrict__ knot_y,
                             float4* __restrict__ seg, int* __restrict__ start) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= knots) return;
    if (b < knots - 1) seg[b] = make_float4(knot_x[b], knot_y[b], knot_x[b + 1], knot_y[b + 1]);
    const float x0 = knot_x[0], inv = bucket_scale(knot_x, knots);
    int lo = 0, hi = knots;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (bucket_of(knot_x[mid], x0, inv, knots) >= b) hi = mid;
        else lo = mid + 1;
    }
    start[b] = min(max(lo - 1, 0), knots - 2);
}

// The scalars of a table: its ends and the bucket scale.
struct Ends {
    float x0, x_last, y0, y_last, inv;
    int knots;
};

__device__ __forceinline__ float interp_one(float q, const Ends& e, const float* kx, const float4* seg,
                                            const int* start) {
    if (!(q >= e.x0)) return e.y0;
    if (q >= e.x_last) return e.y_last;
    // here knots >= 2 and x0 <= q < x_last = kx[knots-1], so the scan stops by j = knots - 2
    int j = start[bucket_of(q, e.x0, e.inv, e.knots)];
    while (kx[j + 1] <= q) ++j;
    const float4 s = seg[j];
    const float w = (q - s.x) / (s.z - s.x);
    return s.y + w * (s.w - s.y);
}

__device__ __forceinline__ float4 interp4(float4 q, const Ends& e, const float* kx, const float4* seg,
                                          const int* start) {
    return make_float4(interp_one(q.x, e, kx, seg, start), interp_one(q.y, e, kx, seg, start),
                       interp_one(q.z, e, kx, seg, start), interp_one(q.w, e, kx, seg, start));
}

template <bool kShared>
__global__ void __launch_bounds__(kThreads, 2) interp_kernel(int knots, int n, bool vec, const float* __restrict__ knot_x,
                                                          const float* __restrict__ knot_y,
                                                          const float4* __restrict__ seg, const int* __restrict__ start,
                                                          const float* __restrict__ x, float* __restrict__ y) {
    extern __shared__ float4 shared[];
    Ends e;
    e.knots = knots;
    e.x0 = knot_x[0];
    e.x_last = knot_x[knots - 1];
    e.y0 = knot_y[0];
    e.y_last = knot_y[knots - 1];
    e.inv = bucket_scale(knot_x, knots);
    const float* kx = knot_x;
    const float4* sg = seg;
    const int* st = start;
    if (kShared) {
        float4* s_seg = shared;
        float* s_kx = reinterpret_cast<float*>(shared + (knots - 1));
        int* s_start = reinterpret_cast<int*>(s_kx + knots);
        if (knots >= 2) {  // with one knot every query is at or beyond an end and no table is read
            for (int j = threadIdx.x; j < knots - 1; j += blockDim.x) s_seg[j] = seg[j];
            for (int j = threadIdx.x; j < knots; j += blockDim.x) {
                s_kx[j] = knot_x[j];
                s_start[j] = start[j];
            }
        }
        __syncthreads();
        kx = s_kx;
        sg = s_seg;
        st = s_start;
    }
    const int n4 = vec ? n / 4 : 0;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    const int stride = gridDim.x * blockDim.x;
    const int first = blockIdx.x * blockDim.x + threadIdx.x;
    int i = first;
    // two float4 loads issued before either is used
    for (; i + stride < n4; i += 2 * stride) {
        const float4 a = x4[i], b = x4[i + stride];
        y4[i] = interp4(a, e, kx, sg, st);
        y4[i + stride] = interp4(b, e, kx, sg, st);
    }
    if (i < n4) y4[i] = interp4(x4[i], e, kx, sg, st);
    for (int k = 4 * n4 + first; k < n; k += stride) y[k] = interp_one(x[k], e, kx, sg, st);
}

void interp1d_table(int knots, int n, const float* knot_x, const float* knot_y, const float* x, float* y) {
    if (n <= 0 || knots <= 0) return;
    static int sms = 0;
    if (sms == 0) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    static float4* seg = nullptr;
    static int* start = nullptr;
    static int capacity = 0;
    if (knots > capacity) {
        if (seg) cudaFree(seg);
        if (start) cudaFree(start);
        cudaMalloc(&seg, (size_t)knots * sizeof(float4));
        cudaMalloc(&start, (size_t)knots * sizeof(int));
        capacity = knots;
    }
    if (knots >= 2) build_tables<<<(knots + 255) / 256, 256>>>(knots, knot_x, knot_y, seg, start);
    const bool vec = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
    const size_t shared = (size_t)(knots - 1) * sizeof(float4) + (size_t)knots * (sizeof(float) + sizeof(int));
    const int items = vec ? (n / 4 > 0 ? n / 4 : n) : n;
    int blocks = (items + kThreads - 1) / kThreads;
    if (shared <= (size_t)kMaxSharedBytes) {
        static size_t opted = 48 * 1024;
        if (shared > opted) {
            cudaFuncSetAttribute(interp_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared);
            opted = shared;
        }
        // resident blocks only, as many as fit: each stages the tables once
        static size_t asked = 0;
        static int per_sm = 1;
        if (shared != asked) {
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, interp_kernel<true>, kThreads, shared);
            if (per_sm < 1) per_sm = 1;
            asked = shared;
        }
        if (blocks > sms * per_sm) blocks = sms * per_sm;
        interp_kernel<true><<<blocks, kThreads, shared>>>(knots, n, vec, knot_x, knot_y, seg, start, x, y);
    } else {
        if (blocks > sms * 2) blocks = sms * 2;
        interp_kernel<false><<<blocks, kThreads>>>(knots, n, vec, knot_x, knot_y, seg, start, x, y);
    }
}
