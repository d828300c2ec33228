// steps: parallelize, atomic_privatization, work_decomposition, grid_stride_loop, vectorized_access, algorithmic_change, launch_config_tuning, read_only_cache
// The 65536 joint bins do not fit one block's shared memory as 32-bit counters, so the bins are
// split into 4 slices of 16384 (64 rows of a): blockIdx.y picks a slice, and the blocks of a slice
// stream the whole image pair with 4-pixel (uchar4) loads, counting only their slice's pixels in a
// 64 KB shared histogram, then flush it with one global atomic per non-zero bin. The marginals are
// not counted per pixel at all: a tiny kernel takes row and column sums of the finished joint.
constexpr int kSlices = 4;
constexpr int kSliceBins = 65536 / kSlices;
constexpr int kThreads = 1024;

__device__ __forceinline__ void count(unsigned int* local, unsigned int lo, unsigned int a, unsigned int b) {
    const unsigned int rel = ((a << 8) | b) - lo;  // wraps to a huge value below the slice
    if (rel < kSliceBins) atomicAdd(&local[rel], 1u);
}

__global__ void __launch_bounds__(kThreads)
    joint_slices(int n, const uchar4* __restrict__ a4, const uchar4* __restrict__ b4, const unsigned char* __restrict__ a,
                 const unsigned char* __restrict__ b, unsigned int* __restrict__ joint) {
    extern __shared__ unsigned int local[];
    const unsigned int lo = blockIdx.y * kSliceBins;
    for (int j = threadIdx.x; j < kSliceBins; j += blockDim.x) local[j] = 0;
    __syncthreads();
    const int quads = n / 4;
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
        const uchar4 pa = __ldg(a4 + q), pb = __ldg(b4 + q);
        count(local, lo, pa.x, pb.x);
        count(local, lo, pa.y, pb.y);
        count(local, lo, pa.z, pb.z);
        count(local, lo, pa.w, pb.w);
    }
    if (blockIdx.x == 0) {  // the last n % 4 pixels
        const int i = quads * 4 + threadIdx.x;
        if (i < n) count(local, lo, a[i], b[i]);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < kSliceBins; j += blockDim.x)
        if (local[j]) atomicAdd(&joint[lo + j], local[j]);
}

// Block 0: hist_a[r] = sum of row r; block 1: hist_b[c] = sum of column c (coalesced across threads).
__global__ void marginals(const unsigned int* __restrict__ joint, unsigned int* hist_a, unsigned int* hist_b) {
    const int t = threadIdx.x;
    unsigned int sum = 0;
    if (blockIdx.x == 0) {
        for (int c = 0; c < 256; ++c) sum += joint[t * 256 + c];
        hist_a[t] = sum;
    } else {
        for (int r = 0; r < 256; ++r) sum += joint[r * 256 + t];
        hist_b[t] = sum;
    }
}

void joint_histogram_u8(int n, const unsigned char* img_a, const unsigned char* img_b, unsigned int* joint,
                        unsigned int* hist_a, unsigned int* hist_b) {
    static int blocks_per_slice = 0;
    const int smem = kSliceBins * sizeof(unsigned int);
    if (blocks_per_slice == 0) {
        cudaFuncSetAttribute(joint_slices, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        int device = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, joint_slices, kThreads, smem);
        blocks_per_slice = (sms * (per_sm > 0 ? per_sm : 1) + kSlices - 1) / kSlices;
    }
    cudaMemsetAsync(joint, 0, 65536 * sizeof(unsigned int), 0);
    if (n > 0) {
        int bx = (n / 4 + kThreads - 1) / kThreads;
        if (bx > blocks_per_slice) bx = blocks_per_slice;
        if (bx < 1) bx = 1;
        joint_slices<<<dim3(bx, kSlices), kThreads, smem>>>(n, reinterpret_cast<const uchar4*>(img_a),
                                                            reinterpret_cast<const uchar4*>(img_b), img_a, img_b,
                                                            joint);
    }
    marginals<<<2, 256>>>(joint, hist_a, hist_b);
}
