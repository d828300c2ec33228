// steps: work_decomposition, vectorized_access, atomic_privatization, atomic_operations, warp_shuffle_reduction, kernel_fusion, shared_memory_tiling
// Each image is split into chunks of 16 KiB, a block per (chunk, image), in two kernels:
// (1) per-warp shared histograms fed by 16-byte loads, merged and added to the image's global
//     histogram with one atomic per nonzero bin;
// (2) the table fused with the lookup: every block scans its image's 256 bins (warp shuffles, then
//     the warp totals), builds the table in shared memory, and maps its chunk 16 bytes at a time.
#include <cstdint>

#define HE_THREADS 256
#define HE_WARPS (HE_THREADS / 32)
#define HE_CHUNK 16384

// The chunk's bytes [g0, g1) of the whole batch: an unaligned head and tail one byte per thread,
// the 16-byte-aligned body as uint4.
struct ChunkSpan {
    long long g0, g1, a0, a1;  // a0..a1: the aligned body
};

__device__ __forceinline__ ChunkSpan chunk_span(long long P, const void* base) {
    const long long start = (long long)blockIdx.x * HE_CHUNK;
    const long long end = min(P, start + HE_CHUNK);
    ChunkSpan s;
    s.g0 = (long long)blockIdx.y * P + start;
    s.g1 = (long long)blockIdx.y * P + end;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(base);
    long long a0 = (long long)(((addr + s.g0 + 15) & ~(uintptr_t)15) - addr);
    long long a1 = (long long)(((addr + s.g1) & ~(uintptr_t)15) - addr);
    if (a0 > a1) a0 = a1 = s.g1;  // no aligned body: all of it is head
    s.a0 = a0;
    s.a1 = a1;
    return s;
}

__global__ void __launch_bounds__(HE_THREADS) equalize_histograms_tiled(long long P, const unsigned char* __restrict__ images,
                                                                       unsigned int* hist) {
    __shared__ unsigned int sub[HE_WARPS][256];
    for (int e = threadIdx.x; e < HE_WARPS * 256; e += HE_THREADS) (&sub[0][0])[e] = 0;
    __syncthreads();
    unsigned int* mine = sub[threadIdx.x >> 5];
    const ChunkSpan s = chunk_span(P, images);
    for (long long g = s.g0 + threadIdx.x; g < s.a0; g += HE_THREADS) atomicAdd(&mine[images[g]], 1u);
    for (long long g = s.a1 + threadIdx.x; g < s.g1; g += HE_THREADS) atomicAdd(&mine[images[g]], 1u);
    const uint4* body = reinterpret_cast<const uint4*>(images + s.a0);
    const long long words = (s.a1 - s.a0) / 16;
    for (long long q = threadIdx.x; q < words; q += HE_THREADS) {
        const uint4 v = body[q];
        const unsigned int parts[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int b = 0; b < 4; ++b) atomicAdd(&mine[(parts[k] >> (8 * b)) & 0xffu], 1u);
    }
    __syncthreads();
    for (int v = threadIdx.x; v < 256; v += HE_THREADS) {
        unsigned int total = 0;
#pragma unroll
        for (int wp = 0; wp < HE_WARPS; ++wp) total += sub[wp][v];
        if (total) atomicAdd(&hist[blockIdx.y * 256 + v], total);
    }
}

__device__ __forceinline__ unsigned int lookup4(const unsigned char* lut, unsigned int word) {
    return (unsigned int)lut[word & 0xffu] | ((unsigned int)lut[(word >> 8) & 0xffu] << 8) |
           ((unsigned int)lut[(word >> 16) & 0xffu] << 16) | ((unsigned int)lut[word >> 24] << 24);
}

__global__ void __launch_bounds__(HE_THREADS) equalize_scan_and_map(long long P, const unsigned char* __restrict__ images,
                                                                   const unsigned int* __restrict__ hist,
                                                                   unsigned char* out, bool same_alignment) {
    __shared__ long long warp_total[HE_WARPS];
    __shared__ long long cdf_min;
    __shared__ unsigned char lut[256];
    // HE_THREADS == 256: thread v owns bin v
    const int v = threadIdx.x, lane = v & 31, warp = v >> 5;
    const long long count = hist[blockIdx.y * 256 + v];
    long long cdf = count;
    for (int o = 1; o < 32; o <<= 1) {
        const long long up = __shfl_up_sync(0xffffffffu, cdf, o);
        if (lane >= o) cdf += up;
    }
    if (lane == 31) warp_total[warp] = cdf;
    __syncthreads();
    if (warp == 0) {
        long long t = lane < HE_WARPS ? warp_total[lane] : 0;
        for (int o = 1; o < HE_WARPS; o <<= 1) {
            const long long up = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) t += up;
        }
        if (lane < HE_WARPS) warp_total[lane] = t;  // inclusive prefix of the warp totals
    }
    __syncthreads();
    if (warp > 0) cdf += warp_total[warp - 1];
    if (cdf > 0 && cdf == count) cdf_min = cdf;  // the first nonzero bin: nothing below it
    __syncthreads();
    const long long den = P - cdf_min;
    const long long num = cdf > cdf_min ? (cdf - cdf_min) * 255 : 0;
    lut[v] = den == 0 ? (unsigned char)v : (unsigned char)((num + den / 2) / den);
    __syncthreads();

    const ChunkSpan s = chunk_span(P, images);
    if (!same_alignment) {  // the output's 16-byte boundaries fall elsewhere: bytes only
        for (long long g = s.g0 + threadIdx.x; g < s.g1; g += HE_THREADS) out[g] = lut[images[g]];
        return;
    }
    for (long long g = s.g0 + threadIdx.x; g < s.a0; g += HE_THREADS) out[g] = lut[images[g]];
    for (long long g = s.a1 + threadIdx.x; g < s.g1; g += HE_THREADS) out[g] = lut[images[g]];
    const uint4* src = reinterpret_cast<const uint4*>(images + s.a0);
    uint4* dst = reinterpret_cast<uint4*>(out + s.a0);
    const long long words = (s.a1 - s.a0) / 16;
    for (long long q = threadIdx.x; q < words; q += HE_THREADS) {
        const uint4 w = src[q];
        dst[q] = make_uint4(lookup4(lut, w.x), lookup4(lut, w.y), lookup4(lut, w.z), lookup4(lut, w.w));
    }
}

void histogram_equalize_batch(int nimg, int h, int w, const unsigned char* images, unsigned char* out) {
    const long long P = (long long)h * w;
    if (P <= 0 || nimg <= 0) return;
    static unsigned int* hist = nullptr;
    static int capacity = 0;
    if (nimg > capacity) {
        if (hist) cudaFree(hist);
        cudaMalloc(&hist, (size_t)nimg * 256 * sizeof(unsigned int));
        capacity = nimg;
    }
    cudaMemsetAsync(hist, 0, (size_t)nimg * 256 * sizeof(unsigned int));
    const dim3 grid((unsigned)((P + HE_CHUNK - 1) / HE_CHUNK), (unsigned)nimg);
    const bool same_alignment = (reinterpret_cast<uintptr_t>(images) & 15) == (reinterpret_cast<uintptr_t>(out) & 15);
    equalize_histograms_tiled<<<grid, HE_THREADS>>>(P, images, hist);
    equalize_scan_and_map<<<grid, HE_THREADS>>>(P, images, hist, out, same_alignment);
}
