// steps: tensor_core_mma, shared_memory_tiling, register_tiling, async_copy_pipelining, bank_conflict_avoidance, kernel_fusion, vectorized_access
// Hopper warpgroup MMA (wgmma, sm_90a): a block of two warpgroups computes a 128 x 64 tile of Y
// from the matching 64 gate and 64 up columns of W; warpgroup g owns rows 64 g.. and per 16-deep
// step issues ONE m64n128k16 wgmma whose 128 columns are the 64 gate columns then the 64 up
// columns (two 64-column blocks of the stage, the descriptor's leading offset apart), so an
// output's gate and up accumulators sit in the same thread, 32 registers apart. One n128 MMA reads
// X's 64 x 16 piece once where two n64 MMAs read it twice: 6 KiB of shared memory per 256 Ki
// flops instead of 8, under the 128 bytes a cycle an SM's shared memory serves at the tensor rate.
// 64-deep slices of X (K-major) and W (N-major, imm-trans-b) stream with 16-byte cp.async into a
// 3-stage ring laid out as the 128-byte swizzle the wgmma descriptors name (16-byte piece c of
// 128-byte row r sits at c ^ (r % 8): conflict-free for the tensor cores' reads); after a slice
// lands each thread fences its copies into the async proxy the wgmma reads through. One group of
// MMAs stays in flight across slices (wgmma.wait_group 1): slice t's MMAs are issued, then the
// warpgroup waits only for slice t - 1's, a barrier frees slice t - 1's stage and the copies of
// slice t + 2 go into it while slice t's MMAs still run, so the tensor cores never drain at a
// barrier. The epilogue (biases, exact GELU, product) runs on the
// accumulators, so g and u never leave registers.
#include <cuda_bf16.h>
#include <cstdint>

constexpr int THREADS = 256;  // two warpgroups
// This variant: 128 x 64 outputs a block, 3 stages of 32 KiB, two blocks an SM (256 blocks at the
// bench size), so one block's MMAs run while the other waits at its barrier
constexpr int BM = 128, BN = 64, BK = 64, STAGES = 3, MIN_BLOCKS = 2;
constexpr int ROW = 128;                          // bytes of a swizzled row: 64 bf16
constexpr int A_BYTES = BM * ROW;                 // X's slice: 128 rows of 64 k
constexpr int B_BLOCK = BK * ROW;                 // 64 columns of W's slice: 64 k rows of 64 n
constexpr int BLOCKS = BN / 64;                   // 64-column blocks of each projection
constexpr int B_BYTES = 2 * BLOCKS * B_BLOCK;     // the gate blocks, then the up blocks
constexpr int ACC = BN;                           // fp32 accumulators a thread: 64 x 2 BN over 128
constexpr int UP = ACC / 2;                       // where the up columns' accumulators begin
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024;  // + room to align the ring to a swizzle atom

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void copy16(void* smem, const void* gmem, bool valid) {
    const int bytes = valid ? 16 : 0;  // 0: zero-fill, nothing is read
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory"); }

// A shared-memory matrix descriptor: start address, leading and stride byte offsets (16-byte units),
// 128-byte swizzle. K-major A: stride = 1024 between 8-row atoms (leading unused). N-major B:
// leading = the step between 64-column blocks, stride = 1024 between groups of 8 k rows.
__device__ __forceinline__ uint64_t descriptor(unsigned addr, unsigned leading, unsigned stride) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(leading >> 4) << 16) | ((uint64_t)(stride >> 4) << 32) |
           (1ull << 62);
}

// wgmma exists only on sm_90a; nvcc -arch=sm_90a also emits portable compute_90 PTX, whose pass
// gets a trap here (an H100 runs the sm_90a binary, never that PTX).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || !defined(__CUDA_ARCH__)
#define WGMMA_OK 1
#else
#define WGMMA_OK 0
#endif

namespace wg {
#if WGMMA_OK
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory"); }
// d (this warpgroup's 64 rows x 128 columns, fp32) += A (64 x 16 bf16, K-major) * B (16 x 128 bf16,
// N-major: imm-trans-b 1), both read from shared memory through their descriptors
__device__ __forceinline__ void mma_sync(float (&d)[ACC], uint64_t desc_a, uint64_t desc_b) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(1));
}
#else
__device__ __forceinline__ void fence() { __trap(); }
__device__ __forceinline__ void commit() {}
template <int PENDING>
__device__ __forceinline__ void wait() {}
__device__ __forceinline__ void mma_sync(float (&)[ACC], uint64_t, uint64_t) {}
#endif
// keeps the compiler from moving accumulator registers across the asynchronous MMAs
__device__ __forceinline__ void pin(float (&d)[ACC]) {
#pragma unroll
    for (int i = 0; i < ACC; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
}  // namespace wg

__device__ __forceinline__ float geglu(float g, float u) { return 0.5f * g * erfcf(-g * 0.70710678f) * u; }

template <bool ALIGNED>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    geglu_wgmma(int M, int N, int K, const __nv_bfloat16* __restrict__ X, const __nv_bfloat16* __restrict__ W,
                const float* __restrict__ bias, float* __restrict__ Y) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // the swizzle is on address bits, so the ring starts on a 1024-byte atom
    const int ring = (1024 - (smem_addr(smem_raw) & 1023)) & 1023;
    const int group = threadIdx.x >> 7, warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    float acc[ACC];  // [0, UP): gate columns n0.., [UP, ACC): up columns N + n0.., of rows m0 + 64 group..
#pragma unroll
    for (int i = 0; i < ACC; ++i) acc[i] = 0.0f;

    // Slice k0.. of X rows m0.. and of W's gate columns n0.. and up columns N + n0.. into the stage at
    // byte `base` of the ring; a byte offset o lands at o ^ ((o >> 3) & 0x70): the 16-byte piece index
    // (bits 4-6) XORed with the row within its 8-row atom (bits 7-9), the 128-byte swizzle's layout.
    const long long ldw = 2LL * N;
    auto load_slice = [&](int base, int k0) {
        base += ring;
        if (ALIGNED) {  // K % 8 == 0 and N % 8 == 0: every 8-element piece is 16-byte aligned, all in or all out
#pragma unroll
            for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {
                const int r = c >> 3, piece = c & 7;
                const int o = r * ROW + piece * 16;
                const bool ok = m0 + r < M && k0 + piece * 8 < K;
                copy16(&smem_raw[base + (o ^ ((o >> 3) & 0x70))], ok ? X + (long long)(m0 + r) * K + k0 + piece * 8 : X,
                       ok);
            }
#pragma unroll
            for (int c = threadIdx.x; c < BK * 2 * BN / 8; c += THREADS) {
                const int k = c / (2 * BLOCKS * 8), blk = (c >> 3) % (2 * BLOCKS), piece = c & 7;  // 8 pieces a block
                const int col = n0 + (blk % BLOCKS) * 64 + piece * 8;
                const bool ok = k0 + k < K && col < N;
                const int o = A_BYTES + blk * B_BLOCK + k * ROW + piece * 16;
                const long long at = (long long)(k0 + k) * ldw + (blk < BLOCKS ? col : N + col);
                copy16(&smem_raw[base + (o ^ ((o >> 3) & 0x70))], ok ? W + at : W, ok);
            }
        } else {  // the small odd shapes of the tests: plain element copies, zero outside
            const __nv_bfloat16 zero = __float2bfloat16(0.0f);
            for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
                const int r = e / BK, k = e % BK;
                const int o = r * ROW + k * 2;
                *reinterpret_cast<__nv_bfloat16*>(&smem_raw[base + (o ^ ((o >> 3) & 0x70))]) =
                    m0 + r < M && k0 + k < K ? X[(long long)(m0 + r) * K + k0 + k] : zero;
            }
            for (int e = threadIdx.x; e < BK * 2 * BN; e += THREADS) {
                const int k = e / (2 * BN), t = e % (2 * BN), blk = t / 64;
                const int col = n0 + (blk % BLOCKS) * 64 + t % 64;
                const int o = A_BYTES + blk * B_BLOCK + k * ROW + (t % 64) * 2;
                *reinterpret_cast<__nv_bfloat16*>(&smem_raw[base + (o ^ ((o >> 3) & 0x70))]) =
                    k0 + k < K && col < N ? W[(long long)(k0 + k) * ldw + (blk < BLOCKS ? col : N + col)] : zero;
            }
        }
    };

    const int slices = (K + BK - 1) / BK;
#pragma unroll
    for (int p = 0; p < STAGES - 1; ++p) {
        if (p < slices) load_slice(p * STAGE_BYTES, p * BK);
        copy_commit();  // empty groups keep the count uniform
    }
    const unsigned ring_addr = smem_addr(smem_raw) + ring;
    for (int t = 0; t < slices; ++t) {
        copy_wait();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // this thread's copies, to the wgmma's proxy
        __syncthreads();  // slice t is in, for both warpgroups

        const unsigned stage = ring_addr + (t % STAGES) * STAGE_BYTES;
        const unsigned a = stage + group * 64 * ROW, b = stage + A_BYTES;
        wg::fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)  // 16 k: 32 bytes along A's swizzled row, 16 rows of B
            wg::mma_sync(acc, descriptor(a + kk * 32, 16, 1024), descriptor(b + kk * 16 * ROW, B_BLOCK, 1024));
        wg::commit();
        wg::wait<1>();  // slice t - 1's MMAs are done; slice t's keep the tensor cores busy
        wg::pin(acc);
        __syncthreads();  // both warpgroups are past slice t - 1: its stage is free
        const int next = t + STAGES - 1;  // two ahead: its stage is slice t - 1's
        if (next < slices) load_slice((next % STAGES) * STAGE_BYTES, next * BK);
        copy_commit();
    }
    wg::wait<0>();
    wg::pin(acc);

    // accumulator 4 j + 2 h + e: row 64 group + 16 warp + lane / 4 + 8 h, column 8 j + 2 (lane % 4) + e
    // of the n128 tile: gate column n0 + 8 j + ... for j < BN / 8, its up partner UP registers on
    const bool pairs = (N % 2) == 0 && (reinterpret_cast<uintptr_t>(Y) & 7) == 0;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const int col = n0 + j * 8 + 2 * (lane & 3);
        const float bg0 = col < N ? bias[col] : 0.0f, bu0 = col < N ? bias[N + col] : 0.0f;
        const float bg1 = col + 1 < N ? bias[col + 1] : 0.0f, bu1 = col + 1 < N ? bias[N + col + 1] : 0.0f;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + group * 64 + warp * 16 + (lane >> 2) + h * 8;
            if (row >= M) continue;
            const float y0 = geglu(acc[4 * j + 2 * h] + bg0, acc[UP + 4 * j + 2 * h] + bu0);
            const float y1 = geglu(acc[4 * j + 2 * h + 1] + bg1, acc[UP + 4 * j + 2 * h + 1] + bu1);
            float* out = Y + (long long)row * N + col;
            if (pairs && col + 1 < N) {
                *reinterpret_cast<float2*>(out) = make_float2(y0, y1);
            } else {
                if (col < N) out[0] = y0;
                if (col + 1 < N) out[1] = y1;
            }
        }
    }
}

template <bool ALIGNED>
static void launch(int M, int N, int K, const __nv_bfloat16* x, const __nv_bfloat16* w, const float* bias, float* Y) {
    auto kernel = geglu_wgmma<ALIGNED>;
    // over 48 KiB needs the opt-in, once per device (the attribute outlives the call)
    static bool configured[64] = {};
    int device = 0;
    cudaGetDevice(&device);
    if (device < 0 || device >= 64 || !configured[device]) {
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        if (device >= 0 && device < 64) configured[device] = true;
    }
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    kernel<<<grid, THREADS, SMEM_BYTES>>>(M, N, K, x, w, bias, Y);
}

void geglu_proj_bf16(int M, int N, int K, const unsigned short* X, const unsigned short* W, const float* bias,
                     float* Y) {
    if (M <= 0 || N <= 0) return;
    const auto* x = reinterpret_cast<const __nv_bfloat16*>(X);
    const auto* w = reinterpret_cast<const __nv_bfloat16*>(W);
    const bool aligned =
        K % 8 == 0 && N % 8 == 0 && ((reinterpret_cast<uintptr_t>(X) | reinterpret_cast<uintptr_t>(W)) & 15) == 0;
    if (aligned)
        launch<true>(M, N, K, x, w, bias, Y);
    else
        launch<false>(M, N, K, x, w, bias, Y);
}
