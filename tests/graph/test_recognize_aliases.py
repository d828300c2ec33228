"""The recognizer's signals that follow data through names (graph/recognize_memory.py,
graph/recognize_registers.py): each signal has a kernel that uses the technique and a near twin that
does not, so a signal that starts claiming code without the technique fails here."""

from __future__ import annotations

import pytest

from regrapht.graph.recognize import recognize
from regrapht.graph.recognize_memory import constant_value, constants, padded_pitch

pytest.importorskip("tree_sitter_cuda")


def found(src: str) -> set[str]:
    return set(recognize(src).methods)


# --------------------------------------------------------------------------- shared tiles through aliases

DYNAMIC_TILE = """
__global__ void blur(int n, int r, const float* __restrict__ in, float* out) {
    extern __shared__ __align__(16) float smem[];
    float* win = smem;
    for (int j = threadIdx.x; j < blockDim.x + 2 * r; j += blockDim.x) win[j] = in[blockIdx.x * blockDim.x + j];
    __syncthreads();
    const float* src = win + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k <= 2 * r; ++k) acc += src[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


def test_a_dynamic_shared_tile_read_through_pointers_is_tiling() -> None:
    assert "shared_memory_tiling" in found(DYNAMIC_TILE)


def test_a_shared_staging_buffer_read_once_is_not_tiling() -> None:
    once = DYNAMIC_TILE.replace(
        "    for (int k = 0; k <= 2 * r; ++k) acc += src[k];\n", "    acc = src[0];\n"
    )
    assert "shared_memory_tiling" not in found(once)


def test_a_global_pointer_offset_by_a_shared_value_is_no_alias() -> None:
    src = """
__global__ void gather(const int* __restrict__ starts, const float* data, float* out) {
    __shared__ int offs[32];
    if (threadIdx.x < 32) offs[threadIdx.x] = starts[blockIdx.x * 32 + threadIdx.x];
    __syncthreads();
    const float* p = data + offs[threadIdx.x & 31];
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k) acc += p[k];
    p[0] > 0.0f ? out[threadIdx.x] = acc : out[threadIdx.x] = 0.0f;
}
"""
    rec = recognize(src)
    # offs itself is read once; p points into global memory, so its reads in the loop are not the tile's
    assert "shared_memory_tiling" not in rec.methods


def test_a_pointer_to_a_warps_rows_of_a_3d_tile_is_followed() -> None:
    src = """
__global__ void transpose_walk(int n, const float* __restrict__ x, float* y) {
    __shared__ float tile[4][32][33];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float (*t)[33] = tile[warp];
    for (int r = 0; r < 32; ++r) t[r][lane] = __ldg(x + r * n + lane);
    __syncwarp();
    float acc = 0.0f;
    for (int s = 0; s < 32; ++s) acc += t[lane][s];
    y[lane] = acc;
}
"""
    assert "shared_memory_tiling" in found(src)
    once = src.replace("for (int s = 0; s < 32; ++s) acc += t[lane][s];", "acc = t[lane][0];")
    assert "shared_memory_tiling" not in found(once)


def test_a_block_sum_through_a_helper_scratch_is_no_tile() -> None:
    """The warps' partial sums go through shared memory and every thread reads all of them, but they
    are values computed in registers, not data staged from memory: a reduction, not a tile."""
    src = """
constexpr int kWarps = 8;
__device__ float block_sum(float v, float* scratch) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    float r = 0.0f;
    for (int w = 0; w < kWarps; ++w) r += scratch[w];
    return r;
}
__global__ void norm(int cols, const float* __restrict__ x, float* y) {
    __shared__ float red[kWarps];
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) s += x[c];
    const float mu = block_sum(s, red) / cols;
    for (int c = threadIdx.x; c < cols; c += 256) y[c] = x[c] - mu;
}
"""
    assert "shared_memory_tiling" not in found(src)
    staged = src.replace("scratch[threadIdx.x >> 5] = v;", "scratch[threadIdx.x >> 5] = __ldg(&x_in[threadIdx.x]);")
    staged = staged.replace("float* scratch)", "float* scratch, const float* x_in)").replace("block_sum(s, red)", "block_sum(s, red, x)")
    assert "shared_memory_tiling" in found(staged)


WMMA_TILED = """
#include <mma.h>
using namespace nvcuda;
constexpr int BM = 64, BK = 32, PAD = 8, LD = BK + PAD;
struct Tiles { __half a[2][BM][LD]; };

__device__ __forceinline__ void copy16(void* smem, const void* gmem) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" ::"r"(dst), "l"(gmem));
}

__global__ void gemm(int K, const __half* __restrict__ A, const __half* __restrict__ B, float* C) {
    __shared__ __align__(128) unsigned char raw[sizeof(Tiles)];
    Tiles& s = *reinterpret_cast<Tiles*>(raw);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    for (int i = 0; i < 2; ++i) wmma::fill_fragment(acc[i], 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int c = threadIdx.x; c < BM * BK / 8; c += blockDim.x)
            copy16(&s.a[0][c / 4][(c % 4) * 8], A + (long long)(c / 4) * K + k0 + (c % 4) * 8);
        asm volatile("cp.async.wait_all;\\n" ::);
        __syncthreads();
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
        wmma::load_matrix_sync(b, B + k0, K);
        for (int i = 0; i < 2; ++i) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::load_matrix_sync(a, &s.a[0][i * 16][0], LD);
            wmma::mma_sync(acc[i], a, b, acc[i]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i) wmma::store_matrix_sync(C + i * 16 * 16, acc[i], 16, wmma::mem_row_major);
}
"""


def test_a_tensor_core_tile_in_a_struct_on_raw_shared_bytes_is_seen() -> None:
    got = found(WMMA_TILED)
    assert {"shared_memory_tiling", "bank_conflict_avoidance", "register_tiling", "vectorized_access"} <= got


def test_tensor_core_operands_straight_from_global_memory_are_no_tile() -> None:
    direct = """
#include <mma.h>
using namespace nvcuda;
__global__ void gemm(int K, const __half* A, const __half* B, float* C) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
        wmma::load_matrix_sync(a, A + k0, K);
        wmma::load_matrix_sync(b, B + k0, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C, acc, 16, wmma::mem_row_major);
}
"""
    got = found(direct)
    assert "tensor_core_mma" in got
    # no shared tile, and one accumulator fragment per warp reuses nothing: no register tile
    assert not got & {"shared_memory_tiling", "register_tiling", "bank_conflict_avoidance"}


# --------------------------------------------------------------------------- padded pitches


def test_padded_pitch_through_constants_and_structs() -> None:
    src = "constexpr int BK = 32, PAD = 8, LD = BK + PAD, HALO = BK + 2;\n#define PITCH 33\n#define ROWS 32\n"
    from regrapht.graph.recognize import _parser

    consts = constants(_parser().parse(src.encode()).root_node, src)
    assert constant_value("LD", consts) == 40
    assert padded_pitch(["128", "LD"], consts)  # a struct field a[BM][LD]
    assert padded_pitch(["ROWS * PITCH"], consts)  # a flattened 32 x 33 tile
    assert not padded_pitch(["HALO", "HALO"], consts)  # a stencil's halo widens both dimensions
    assert not padded_pitch(["33", "33"], consts)
    assert not padded_pitch(["BK + 2 * ROWS"], consts)  # one dimension: no row pitch
    assert not padded_pitch(["64", "BK"], consts)


def test_a_padded_struct_tile_is_bank_conflict_avoidance_and_the_unpadded_twin_is_not() -> None:
    assert "bank_conflict_avoidance" in found(WMMA_TILED)
    unpadded = WMMA_TILED.replace("LD = BK + PAD", "LD = BK")
    assert "bank_conflict_avoidance" not in found(unpadded)


def test_a_runtime_const_is_no_compile_time_constant() -> None:
    src = "__global__ void k(const int* a) { const int n = a[threadIdx.x]; constexpr int m = 4; }"
    from regrapht.graph.recognize import _parser

    consts = constants(_parser().parse(src.encode()).root_node, src)
    assert "m" in consts and "n" not in consts


# --------------------------------------------------------------------------- register tiles

RANK_SORT = """
constexpr int kPerLane = 8;
__global__ void rank(const unsigned* __restrict__ keys, int* out, int len) {
    __shared__ unsigned seg[256];
    for (int i = threadIdx.x; i < len; i += 32) seg[i] = keys[i];
    __syncwarp();
    unsigned mine[kPerLane];
    int rank[kPerLane];
    for (int t = 0; t < kPerLane; ++t) { mine[t] = seg[threadIdx.x + 32 * t]; rank[t] = 0; }
    for (int j = 0; j < len; ++j) {
        const unsigned other = seg[j];
        for (int t = 0; t < kPerLane; ++t) rank[t] += other < mine[t];
    }
    for (int t = 0; t < kPerLane; ++t) out[threadIdx.x + 32 * t] = rank[t];
}
"""


def test_accumulators_sized_by_a_lower_case_constant_are_a_register_tile() -> None:
    assert "register_tiling" in found(RANK_SORT)


def test_a_constant_sized_array_only_loaded_is_no_register_tile() -> None:
    loads = """
constexpr int kUnroll = 4;
__global__ void k(const int* __restrict__ p, int* out, int stride) {
    int v[kUnroll];
    for (int j = 0; j < kUnroll; ++j) v[j] = __ldg(p + j * stride);
    out[threadIdx.x] = v[0] + v[3];
}
"""
    assert "register_tiling" not in found(loads)


def test_a_per_thread_row_indexed_by_a_runtime_loop_is_local_memory() -> None:
    naive_dp = """
#define MAX_WIDTH 63
__global__ void dp(int n, int width, const float* x, float* out) {
    float cur[MAX_WIDTH];
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < width; ++k) cur[k] = x[i] + (k > 0 ? cur[k - 1] : 0.0f);
    out[threadIdx.x] = cur[0];
}
"""
    assert "register_tiling" not in found(naive_dp)
    unrolled = naive_dp.replace("k < width", "k < MAX_WIDTH")
    assert "register_tiling" in found(unrolled)
    # an upper-case name is no constant when it is a parameter: acc[k] over k < K is in local memory
    by_param = """
__global__ void k(int K, const float* x, float* out) {
    float acc[8];
    for (int k = 0; k < K; ++k) acc[k] += x[k];
    out[threadIdx.x] = acc[0];
}
"""
    assert "register_tiling" not in found(by_param)
    assert "register_tiling" in found(by_param.replace("k < K", "k < 8"))


STRIP = """
constexpr int kC = 16;
__global__ void strip(int m, const int* __restrict__ left, int* out) {
    int h_up[kC];
    for (int k = 0; k < kC; ++k) h_up[k] = 0;
    int h = 0;
    for (int i = 0; i < m; ++i) {
        h = left[i];
#pragma unroll
        for (int k = 0; k < kC; ++k) {
            const int hn = max(h, h_up[k] - 2);
            h_up[k] = hn;
            h = hn;
        }
    }
    out[threadIdx.x] = h;
}
"""


def test_state_updated_in_place_across_an_outer_loop_is_a_register_strip() -> None:
    assert "register_tiling" in found(STRIP)
    overwritten = STRIP.replace("max(h, h_up[k] - 2)", "max(h, left[k] - 2)")
    assert "register_tiling" not in found(overwritten)  # written, never read back: no carried state


WAVEFRONT = """
__global__ void wave(int n, const float* __restrict__ x, float* out) {
    const int lane = threadIdx.x & 31;
    float p1 = 0.0f, p2 = 0.0f;
    for (int d = 1; d < n; ++d) {
        float up = __shfl_up_sync(0xffffffffu, p1, 1);
        float v = x[d * 32 + lane] + fminf(up, p2);
        p2 = p1;
        p1 = v;
    }
    out[lane] = p1;
}
"""


def test_rotating_registers_exchanged_by_shuffles_are_a_register_cache() -> None:
    assert "register_tiling" in found(WAVEFRONT)


def test_a_recurrence_without_shuffles_and_a_swap_are_no_register_cache() -> None:
    clenshaw = WAVEFRONT.replace("__shfl_up_sync(0xffffffffu, p1, 1)", "2.0f * p1")
    assert "register_tiling" not in found(clenshaw)
    swap = """
__global__ void sortnet(int n, float* v) {
    float a = v[threadIdx.x], b = v[threadIdx.x + 32], t = 0.0f;
    for (int s = 0; s < n; ++s) {
        a = __shfl_xor_sync(0xffffffffu, a, 1);
        t = a;
        a = b;
        b = t;
    }
    v[threadIdx.x] = a + b;
}
"""
    assert "register_tiling" not in found(swap)


# --------------------------------------------------------------------------- atomics, copies, persistence


def test_atomics_on_a_warp_row_of_a_shared_histogram_are_privatized() -> None:
    src = """
__global__ void hist(long long n, const unsigned char* __restrict__ in, unsigned* out) {
    __shared__ unsigned sub[8][256];
    for (int e = threadIdx.x; e < 8 * 256; e += blockDim.x) (&sub[0][0])[e] = 0;
    __syncthreads();
    unsigned* mine = sub[threadIdx.x >> 5];
    for (long long g = threadIdx.x; g < n; g += blockDim.x) atomicAdd(&mine[in[g]], 1u);
}
"""
    assert "atomic_privatization" in found(src)
    global_only = src.replace("unsigned* mine = sub[threadIdx.x >> 5];", "unsigned* mine = out;")
    assert "atomic_privatization" not in found(global_only)


BLOCK_QUEUE = """
__device__ void block_push(int* block_q, int* block_n, int* queue, int* count, int v) {
    const int slot = atomicAdd(block_n, 1);
    if (slot < 1024) block_q[slot] = v;
    else queue[atomicAdd(count, 1)] = v;
}

__global__ void frontier(int n, const int* __restrict__ in_q, const int* __restrict__ next, int* out_q, int* out_n) {
    __shared__ int block_q[1024];
    __shared__ int block_n, block_base;
    if (threadIdx.x == 0) block_n = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && next[in_q[i]] >= 0) block_push(block_q, &block_n, out_q, out_n, next[in_q[i]]);
    __syncthreads();
    const int held = min(block_n, 1024);
    if (threadIdx.x == 0) block_base = atomicAdd(out_n, held);
    __syncthreads();
    for (int j = threadIdx.x; j < held; j += blockDim.x) out_q[block_base + j] = block_q[j];
}
"""


def test_a_block_queue_counted_by_a_shared_scalar_privatizes_the_global_counter() -> None:
    # the shared counter reaches the atomic through a helper's parameter
    assert "atomic_privatization" in found(BLOCK_QUEUE)
    # and directly in the kernel
    inline = BLOCK_QUEUE.replace("block_push(block_q, &block_n, out_q, out_n, next[in_q[i]]);",
                                 "block_q[atomicAdd(&block_n, 1)] = next[in_q[i]];")
    assert "atomic_privatization" in found(inline)
    # the same helper given the global counter: every push is a global atomic
    direct = BLOCK_QUEUE.replace("block_push(block_q, &block_n, out_q, out_n,", "block_push(block_q, out_n, out_q, out_n,")
    assert "atomic_privatization" not in found(direct)


def test_only_wide_cp_async_copies_are_vectorized() -> None:
    wide = 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" ::"r"(d), "l"(g));'
    narrow = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\\n" ::"r"(d), "l"(g));'
    kernel = "__global__ void k(unsigned d, const float* g) {{ {} }}"
    assert "vectorized_access" in found(kernel.format(wide))
    assert "vectorized_access" not in found(kernel.format(narrow))
    assert "async_copy_pipelining" in found(kernel.format(narrow))


PERSISTENT = """
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void levels(int* frontier, int* count) {
    cg::grid_group grid = cg::this_grid();
    for (int level = 0;; ++level) {
        if (count[level % 2] == 0) break;
        for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < count[level % 2]; v += gridDim.x * blockDim.x)
            frontier[v] += level;
        grid.sync();
    }
}
void run(int* f, int* c) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    void* args[] = {&f, &c};
    cudaLaunchCooperativeKernel((void*)levels, dim3(sms), dim3(256), args, 0, 0);
}
"""


def test_a_resident_grid_looping_over_phases_with_grid_sync_is_persistent() -> None:
    assert "persistent_kernel" in found(PERSISTENT)


def test_one_grid_sync_between_two_phases_or_an_unsized_grid_is_not_persistent() -> None:
    one_sync = PERSISTENT.replace(
        "    for (int level = 0;; ++level) {\n        if (count[level % 2] == 0) break;\n", "    {\n        int level = 0;\n"
    )
    assert "persistent_kernel" not in found(one_sync)
    unsized = PERSISTENT.replace("cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);", "sms = 64;")
    assert "persistent_kernel" not in found(unsized)


BLOCK_TILES = """
__global__ void tiles_kernel(int tiles, const float* __restrict__ x, float* y) {
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) y[tile * 256 + threadIdx.x] = 2.0f * x[tile * 256 + threadIdx.x];
}
void run(int tiles, const float* x, float* y) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    tiles_kernel<<<2 * sms, 256>>>(tiles, x, y);
}
"""


def test_blocks_looping_over_tiles_in_a_grid_sized_by_the_sms_are_persistent() -> None:
    assert "persistent_kernel" in found(BLOCK_TILES)
    declared_before = BLOCK_TILES.replace("for (int tile = blockIdx.x;", "int tile = blockIdx.x;\n    for (;")
    assert "persistent_kernel" in found(declared_before)


def test_a_tile_loop_in_a_data_sized_grid_or_a_thread_grid_stride_loop_is_not_persistent() -> None:
    data_sized = BLOCK_TILES.replace("cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);", "sms = tiles;")
    assert "persistent_kernel" not in found(data_sized)
    thread_stride = BLOCK_TILES.replace(
        "int tile = blockIdx.x; tile < tiles; tile += gridDim.x", "int tile = blockIdx.x * blockDim.x + threadIdx.x; tile < tiles; tile += gridDim.x * blockDim.x"
    )
    got = found(thread_stride)
    assert "grid_stride_loop" in got and "persistent_kernel" not in got


def test_a_sliding_window_of_loads_in_registers_is_a_register_queue() -> None:
    march = """
__global__ void march(int nz, long long sz, const float* __restrict__ u, float* d) {
    long long p = blockIdx.x * blockDim.x + threadIdx.x;
    float below = u[p], here = u[p + sz];
    for (int k = 1; k < nz - 1; ++k, p += sz) {
        float above = u[p + 2 * sz];
        d[p + sz] = above - 2.0f * here + below;
        below = here;
        here = above;
    }
}
"""
    assert "register_tiling" in found(march)
    clenshaw = """
__global__ void cheb(int n, const float* __restrict__ c, const float* x, float* y) {
    const float t = x[threadIdx.x];
    float b1 = 0.0f, b2 = 0.0f;
    for (int k = n - 1; k > 0; --k) {
        float b0 = 2.0f * t * b1 - b2 + c[k];
        b2 = b1;
        b1 = b0;
    }
    y[threadIdx.x] = t * b1 - b2 + c[0];
}
"""
    assert "register_tiling" not in found(clenshaw)  # a recurrence of computed terms, not loads


def test_sixteen_byte_unsigned_long_long_pairs_are_vectorized() -> None:
    src = """
__global__ void xor_pairs(const ulonglong2* a, unsigned long long* out) {
    const ulonglong2 v = a[threadIdx.x];
    out[threadIdx.x] = v.x ^ v.y;
}
"""
    assert "vectorized_access" in found(src)
    assert "vectorized_access" not in found(src.replace("ulonglong2", "unsigned long long").replace("v.x ^ v.y", "v"))
