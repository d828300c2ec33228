// steps: work_decomposition, vectorized_access, algorithmic_change, warp_shuffle_reduction, fast_math_intrinsics
// One warp per row instead of one thread: the warp's lanes read the row together (16-byte loads of
// 8 bf16 values when vocab is a multiple of 8, so every load instruction is one contiguous 512-byte
// run), which the thread-per-row port cannot do (its warp touches 32 rows per load). The row is read
// once: each lane keeps an online (max, scaled sum) pair, rescaling its sum when a chunk raises the
// maximum, and the 32 pairs merge through warp shuffles. Exponentials use __expf.
#include <cuda_bf16.h>

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float top = fmaxf(m, m2);
    if (top == -INFINITY) return;  // both empty
    s = s * __expf(m - top) + s2 * __expf(m2 - top);
    m = top;
}

__global__ void __launch_bounds__(256) xent_warp_row(int rows, int vocab, const unsigned short* __restrict__ logits,
                                                     const int* __restrict__ labels, float* __restrict__ loss) {
    const int lane = threadIdx.x & 31;
    const int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (r >= rows) return;
    const int target = __ldg(labels + r);
    if (target < 0) {
        if (lane == 0) loss[r] = 0.0f;
        return;
    }
    const unsigned short* z = logits + (long long)r * vocab;
    float m = -INFINITY, s = 0.0f;
    if (vocab % 8 == 0) {
        const uint4* z8 = reinterpret_cast<const uint4*>(z);
        for (int j = lane; j < vocab / 8; j += 32) {
            const uint4 v = __ldg(z8 + j);
            const unsigned w[4] = {v.x, v.y, v.z, v.w};
            float f[8];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                f[2 * k] = __uint_as_float(w[k] << 16);
                f[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u);
            }
            float top = f[0];
#pragma unroll
            for (int k = 1; k < 8; ++k) top = fmaxf(top, f[k]);
            float part = 0.0f;
#pragma unroll
            for (int k = 0; k < 8; ++k) part += __expf(f[k] - top);
            merge(m, s, top, part);
        }
    } else {
        for (int j = lane; j < vocab; j += 32) merge(m, s, __uint_as_float((unsigned)__ldg(z + j) << 16), 1.0f);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, offset);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, offset);
        merge(m, s, m2, s2);
    }
    if (lane == 0) loss[r] = m + logf(s) - __uint_as_float((unsigned)__ldg(z + target) << 16);
}

void xent_loss_bf16(int rows, int vocab, const unsigned short* logits, const int* labels, float* loss) {
    if (rows <= 0) return;
    constexpr int warps = 8;
    xent_warp_row<<<(rows + warps - 1) / warps, warps * 32>>>(rows, vocab, logits, labels, loss);
}
