// steps: algorithmic_change, shared_memory_tiling
// naive.cu gathers each triangle's three vertices at random from 182 MB of vertices (3.6x the L2):
// ~2.7 GB of random DRAM sectors at the bench size. Scattering results computed in vertex order back
// to shuffled positions costs as much (session 14: partial-sector stores). Here every pass streams,
// except pass 2's first touch of each vertex sector (each once, inside an L2-sized window); the two
// reorderings happen inside 4096-triangle tiles, in shared memory:
//   1. sort_tiles (a block per tile): counting-sort the tile's triangles in shared memory by the
//      vertex window of their first vertex (nb windows of 2^shift ids, ~6 MB of vertices each); write
//      the sorted records back to the tile's own slots of a workspace (coalesced), each triangle's
//      sorted position (perm, 16 bits), and where each window's run starts (tbl). A record is 8
//      bytes: a, and b - a and c - a as two 16-bit offsets (a mesh's triangles join nearby ids); a
//      triangle whose offsets do not fit is marked, and its b and c go to a side array at its slot.
//   2. cross_runs (blocks ordered window-major): a block takes window k's run from 32 consecutive
//      tiles (runs of ~140 contiguous records), so the blocks running at once gather from one or two
//      windows that sit in L2 (each vertex crosses DRAM about once), and writes the cross product
//      (b - a) x (c - a), 12 bytes, at the record's slot of a results array (runs: contiguous stores).
//   3. unsort_tiles (a block per tile): load the tile's 4096 cross products into shared memory
//      (coalesced), pick each triangle's by perm, normalize it, store normals and areas as float4s
//      (coalesced). The length and the normal come from the same float cross product as in naive.cu,
//      so splitting the arithmetic between passes changes no value.
// ~2.4 GB streamed at the bench size (tris 365 MB in, 243 MB of records out and in, vertices once,
// 365 MB of cross products out and in, perm 61 MB out and in, 487 MB of outputs). No global atomics: a
// tile's runs are sized by its own count, so nothing depends on the input being a heightfield for
// correctness; only the speed assumes a triangle's vertex ids sit near each other.
// The normal and area use naive.cu's float arithmetic on the same values.

#include <cstdint>

namespace {

constexpr int kTile = 4096;                   // triangles per tile (passes 1 and 3)
constexpr int kSortThreads = 512;             // pass 1: 8 triangles a thread
constexpr int kPerThread = kTile / kSortThreads;
constexpr int kMaxWindows = 64;               // buckets per tile (pass 1's scan is one warp, 2 a lane)
constexpr int kMinShift = 19;                 // 2^19 vertices = 6 MB of vertices per window
constexpr int kRunTiles = 32;                 // pass 2: tiles per block (a power of two: binary search)
constexpr int kCrossThreads = 256;
constexpr int kBatch = 4;                     // pass 2: records a thread has in flight
constexpr int kFinishThreads = 512;           // pass 3: 2 x 4 consecutive triangles a thread
static_assert((kRunTiles & (kRunTiles - 1)) == 0 && kRunTiles <= 32, "one warp scans the runs");
static_assert(kTile % (4 * kFinishThreads) == 0, "pass 3 covers a tile in fours");
constexpr unsigned kFar = 0x8000u;            // a record's offset field: b and c are in the side array
static_assert(kMaxWindows <= 64 && kTile <= 65536, "16-bit ranks and positions");

__device__ __forceinline__ int window_of(int a, int shift, int nb) {
    return min(static_cast<int>(static_cast<unsigned>(a) >> shift), nb - 1);
}

// Pass 1. Shared memory: the tile's 3*n ids (48 KB), then, once they are in registers, its n sorted
// records (32 KB as int2).
__global__ void __launch_bounds__(kSortThreads, 2)
    sort_tiles(int ntris, const int* __restrict__ tris, int shift, int nb, int2* __restrict__ rec,
               int2* __restrict__ side, unsigned short* __restrict__ perm, int* __restrict__ tbl) {
    extern __shared__ int4 stage[];
    __shared__ int count[kMaxWindows];
    __shared__ int start[kMaxWindows + 1];
    const long long t0 = static_cast<long long>(blockIdx.x) * kTile;
    const int n = static_cast<int>(min(static_cast<long long>(kTile), ntris - t0));
    int* raw = reinterpret_cast<int*>(stage);
    int2* sorted = reinterpret_cast<int2*>(stage);
    const int* src = tris + 3 * t0;
    if (n == kTile) {
        const int4* src4 = reinterpret_cast<const int4*>(src);  // 3*t0 ints = 48 KB per tile: aligned
        for (int q = threadIdx.x; q < 3 * kTile / 4; q += kSortThreads) stage[q] = __ldcs(src4 + q);
    } else {
        for (int q = threadIdx.x; q < 3 * n; q += kSortThreads) raw[q] = __ldcs(src + q);
    }
    if (threadIdx.x < kMaxWindows) count[threadIdx.x] = 0;
    __syncthreads();

    int id[kPerThread][3];
    int key[kPerThread];  // window << 16 | rank within the window (the shared atomic's old value)
    for (int r = 0; r < kPerThread; ++r) {
        const int i = threadIdx.x + r * kSortThreads;
        if (i < n) {
            id[r][0] = raw[3 * i];
            id[r][1] = raw[3 * i + 1];
            id[r][2] = raw[3 * i + 2];
            const int k = window_of(id[r][0], shift, nb);
            key[r] = (k << 16) | atomicAdd(&count[k], 1);
        }
    }
    __syncthreads();

    if (threadIdx.x < 32) {  // exclusive scan of the nb counts; start[nb] = n
        const int l = threadIdx.x;
        const int c0 = 2 * l < nb ? count[2 * l] : 0;
        const int c1 = 2 * l + 1 < nb ? count[2 * l + 1] : 0;
        int incl = c0 + c1;
        for (int d = 1; d < 32; d <<= 1) {
            const int v = __shfl_up_sync(0xffffffffu, incl, d);
            if (l >= d) incl += v;
        }
        const int excl = incl - c0 - c1;
        if (2 * l < nb) start[2 * l] = excl;
        if (2 * l + 1 < nb) start[2 * l + 1] = excl + c0;
        if (l == 0) start[nb] = n;
    }
    __syncthreads();

    if (threadIdx.x <= nb) tbl[static_cast<long long>(blockIdx.x) * (nb + 1) + threadIdx.x] = start[threadIdx.x];
    for (int r = 0; r < kPerThread; ++r) {
        const int i = threadIdx.x + r * kSortThreads;
        if (i < n) {
            const int p = start[key[r] >> 16] + (key[r] & 0xffff);
            const long long db = static_cast<long long>(id[r][1]) - id[r][0];
            const long long dc = static_cast<long long>(id[r][2]) - id[r][0];
            // db = -32768 is kFar's bit pattern, so a real offset never reads as the mark
            const bool near = db >= -32767 && db <= 32767 && dc >= -32768 && dc <= 32767;
            const unsigned w = near ? (static_cast<unsigned>(db & 0xffff) | (static_cast<unsigned>(dc & 0xffff) << 16))
                                    : kFar;
            sorted[p] = make_int2(id[r][0], static_cast<int>(w));
            if (!near) __stcs(side + t0 + p, make_int2(id[r][1], id[r][2]));
            __stcs(perm + t0 + i, static_cast<unsigned short>(p));
        }
    }
    __syncthreads();
    int2* dst = rec + t0;
    for (int q = threadIdx.x; q < n; q += kSortThreads) __stcs(dst + q, sorted[q]);
}

// Vertex v's record is floats [3v, 3v+3) of verts (16-byte aligned here). The aligned float4 at
// base = 4*floor(3v/4) holds it when 3v%4 <= 1; otherwise it runs into the next chunk and a float2 at
// base+4 supplies the rest. For v < vlast = nverts-1 both stay inside the array (base+6 <= 3v+6 <=
// 3*nverts); the last vertex is read as three floats. Loads are issued here and picked later, so a
// thread's gathers are all in flight before it waits on one.
__device__ __forceinline__ void fetch_vertex(const float* verts, int v, int vlast, float4& c, float2& d) {
    const long long off = 3LL * v;
    d = make_float2(0.0f, 0.0f);
    if (v < vlast) {
        const long long base = off & ~3LL;
        c = __ldg(reinterpret_cast<const float4*>(verts + base));
        if (off - base >= 2) d = __ldg(reinterpret_cast<const float2*>(verts + base + 4));
    } else {
        c = make_float4(__ldg(verts + off), __ldg(verts + off + 1), __ldg(verts + off + 2), 0.0f);
    }
}

__device__ __forceinline__ void pick_vertex(int v, int vlast, const float4& c, const float2& d, float* p) {
    const int r = v < vlast ? (3 * (v & 3)) & 3 : 0;  // == 3v % 4: the record's first float within c
    const bool odd = r & 1, high = r & 2;
    p[0] = high ? (odd ? c.w : c.z) : (odd ? c.y : c.x);
    p[1] = high ? (odd ? d.x : c.w) : (odd ? c.z : c.y);
    p[2] = high ? (odd ? d.y : d.x) : (odd ? c.w : c.z);
}

// naive.cu's float arithmetic, in two halves: the cross product (pass 2) and the normal and area
// from it (pass 3).
__device__ __forceinline__ float3 cross_of(const float* a, const float* b, const float* c) {
    float e1x = b[0] - a[0], e1y = b[1] - a[1], e1z = b[2] - a[2];
    float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
    float nx = e1y * e2z - e1z * e2y;
    float ny = e1z * e2x - e1x * e2z;
    float nz = e1x * e2y - e1y * e2x;
    return make_float3(nx, ny, nz);
}

__device__ __forceinline__ float4 normal_area(float nx, float ny, float nz) {
    float len = sqrtf(nx * nx + ny * ny + nz * nz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    return make_float4(nx * inv, ny * inv, nz * inv, 0.5f * len);
}

// Pass 2. Block b takes window k = b / groups of tiles [g*kRunTiles, (g+1)*kRunTiles), g = b % groups:
// consecutive blocks share a window. The runs are flattened (pre: exclusive prefix of their lengths)
// so a block's threads share its ~4400 records evenly.
__global__ void __launch_bounds__(kCrossThreads)
    cross_runs(int ntiles, int nb, int groups, int vlast, const float* __restrict__ verts,
               const int* __restrict__ tbl, const int2* __restrict__ rec, const int2* __restrict__ side,
               float* __restrict__ res) {
    __shared__ long long base[kRunTiles];
    __shared__ int pre[kRunTiles + 1];
    const int k = blockIdx.x / groups;
    const int g = blockIdx.x - k * groups;
    if (threadIdx.x < 32) {
        const int l = threadIdx.x;
        const long long j = static_cast<long long>(g) * kRunTiles + l;
        int len = 0;
        if (l < kRunTiles && j < ntiles) {
            const int* row = tbl + j * (nb + 1);
            const int s = row[k];
            len = row[k + 1] - s;
            base[l] = j * kTile + s;
        }
        int incl = len;
        for (int d = 1; d < 32; d <<= 1) {
            const int v = __shfl_up_sync(0xffffffffu, incl, d);
            if (l >= d) incl += v;
        }
        if (l < kRunTiles) pre[l] = incl - len;
        if (l == kRunTiles - 1) pre[kRunTiles] = incl;
    }
    __syncthreads();
    const int total = pre[kRunTiles];
    for (int f0 = 0; f0 < total; f0 += kBatch * kCrossThreads) {
        long long slot[kBatch];
        int2 q[kBatch];
        for (int u = 0; u < kBatch; ++u) {
            const int f = f0 + u * kCrossThreads + threadIdx.x;
            slot[u] = -1;
            if (f < total) {
                int lo = 0;  // the last run starting at or before f: a non-empty one, f inside it
                for (int step = kRunTiles / 2; step > 0; step >>= 1)
                    if (pre[lo + step] <= f) lo += step;
                slot[u] = base[lo] + (f - pre[lo]);
                q[u] = __ldcs(rec + slot[u]);
            }
        }
        // Decoded only once all kBatch record loads are issued: the side array's load depends on the
        // record, and placed beside it, it would make each record load wait for the one before.
        int3 r[kBatch];
        for (int u = 0; u < kBatch; ++u) {
            if (slot[u] >= 0) {
                const int db = static_cast<short>(static_cast<unsigned>(q[u].y) & 0xffffu);
                const int dc = static_cast<short>(static_cast<unsigned>(q[u].y) >> 16);
                r[u] = make_int3(q[u].x, q[u].x + db, q[u].x + dc);
                if (static_cast<unsigned>(q[u].y) == kFar) {
                    const int2 bc = __ldcs(side + slot[u]);
                    r[u].y = bc.x;
                    r[u].z = bc.y;
                }
            }
        }
        float4 c4[kBatch][3];
        float2 c2[kBatch][3];
        for (int u = 0; u < kBatch; ++u) {
            if (slot[u] >= 0) {
                fetch_vertex(verts, r[u].x, vlast, c4[u][0], c2[u][0]);
                fetch_vertex(verts, r[u].y, vlast, c4[u][1], c2[u][1]);
                fetch_vertex(verts, r[u].z, vlast, c4[u][2], c2[u][2]);
            }
        }
        for (int u = 0; u < kBatch; ++u) {
            if (slot[u] >= 0) {
                float a[3], b[3], c[3];
                pick_vertex(r[u].x, vlast, c4[u][0], c2[u][0], a);
                pick_vertex(r[u].y, vlast, c4[u][1], c2[u][1], b);
                pick_vertex(r[u].z, vlast, c4[u][2], c2[u][2], c);
                const float3 x = cross_of(a, b, c);
                __stcs(res + 3 * slot[u], x.x);  // a warp's three stores fill 384 contiguous bytes
                __stcs(res + 3 * slot[u] + 1, x.y);
                __stcs(res + 3 * slot[u] + 2, x.z);
            }
        }
    }
}

// Pass 3. Shared memory: the tile's n cross products (48 KB). A thread stores 4 consecutive
// triangles at a time, twice.
__global__ void __launch_bounds__(kFinishThreads, 3)
    unsort_tiles(int ntris, const float* __restrict__ res, const unsigned short* __restrict__ perm,
                 float* __restrict__ normals, float* __restrict__ areas) {
    extern __shared__ float4 tile4[];
    const float* tile = reinterpret_cast<const float*>(tile4);
    const long long t0 = static_cast<long long>(blockIdx.x) * kTile;
    const int n = static_cast<int>(min(static_cast<long long>(kTile), ntris - t0));
    if (n == kTile) {
        const float4* src4 = reinterpret_cast<const float4*>(res + 3 * t0);  // 48 KB per tile: aligned
        for (int q = threadIdx.x; q < 3 * kTile / 4; q += kFinishThreads) tile4[q] = __ldcs(src4 + q);
    } else {
        float* dst = reinterpret_cast<float*>(tile4);
        for (int q = threadIdx.x; q < 3 * n; q += kFinishThreads) dst[q] = __ldcs(res + 3 * t0 + q);
    }
    __syncthreads();
    for (int h = 0; h < kTile / (4 * kFinishThreads); ++h) {
        const int i0 = 4 * (threadIdx.x + h * kFinishThreads);
        if (i0 + 4 <= n) {
            // t0 + i0 is a multiple of 4: perm's 8 bytes, normals' 48 and areas' 16 are aligned
            const ushort4 p = __ldcs(reinterpret_cast<const ushort4*>(perm + t0 + i0));
            const float4 v0 = normal_area(tile[3 * p.x], tile[3 * p.x + 1], tile[3 * p.x + 2]);
            const float4 v1 = normal_area(tile[3 * p.y], tile[3 * p.y + 1], tile[3 * p.y + 2]);
            const float4 v2 = normal_area(tile[3 * p.z], tile[3 * p.z + 1], tile[3 * p.z + 2]);
            const float4 v3 = normal_area(tile[3 * p.w], tile[3 * p.w + 1], tile[3 * p.w + 2]);
            float4* np = reinterpret_cast<float4*>(normals + 3 * (t0 + i0));
            __stcs(np, make_float4(v0.x, v0.y, v0.z, v1.x));
            __stcs(np + 1, make_float4(v1.y, v1.z, v2.x, v2.y));
            __stcs(np + 2, make_float4(v2.z, v3.x, v3.y, v3.z));
            __stcs(reinterpret_cast<float4*>(areas + t0 + i0), make_float4(v0.w, v1.w, v2.w, v3.w));
        } else {
            for (int i = i0; i < n; ++i) {  // the tile's last n % 4 triangles
                const int p = perm[t0 + i];
                const float4 v = normal_area(tile[3 * p], tile[3 * p + 1], tile[3 * p + 2]);
                normals[3 * (t0 + i)] = v.x;
                normals[3 * (t0 + i) + 1] = v.y;
                normals[3 * (t0 + i) + 2] = v.z;
                areas[t0 + i] = v.w;
            }
        }
    }
}

// Unaligned buffers or no workspace: naive.cu's thread per triangle.
__global__ void triangle_normals_direct(int ntris, const float* __restrict__ verts, const int* __restrict__ tris,
                                        float* __restrict__ normals, float* __restrict__ areas) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= ntris) return;
    const float* a = verts + 3LL * tris[3 * t];
    const float* b = verts + 3LL * tris[3 * t + 1];
    const float* c = verts + 3LL * tris[3 * t + 2];
    const float3 x = cross_of(a, b, c);
    const float4 o = normal_area(x.x, x.y, x.z);
    normals[3 * t] = o.x;
    normals[3 * t + 1] = o.y;
    normals[3 * t + 2] = o.z;
    areas[t] = o.w;
}

// The workspace outlives the call (as in csr_to_csc) and grows when a larger mesh comes.
// It belongs to the device current at its first allocation: one GPU per process, as the harness runs.
struct Workspace {
    int2* rec = nullptr;               // kTile slots per tile: (a, offsets of b and c) in sorted order
    int2* side = nullptr;              // (b, c) at the slot of a record marked kFar
    float* res = nullptr;              // the cross product (3 floats) at the record's slot
    unsigned short* perm = nullptr;    // each triangle's position in its tile's sorted order
    int* tbl = nullptr;                // per tile, nb + 1 run starts
    long long tiles = 0;
    bool attributes = false;
};
Workspace g_ws;

void release() {
    cudaFree(g_ws.rec);
    cudaFree(g_ws.side);
    cudaFree(g_ws.res);
    cudaFree(g_ws.perm);
    cudaFree(g_ws.tbl);
    g_ws = Workspace{nullptr, nullptr, nullptr, nullptr, nullptr, 0, true};
}

bool reserve(long long ntiles) {
    if (!g_ws.attributes) {
        cudaFuncSetAttribute(sort_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 3 * kTile * sizeof(int));
        cudaFuncSetAttribute(unsort_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, 3 * kTile * sizeof(float));
        g_ws.attributes = true;
    }
    if (ntiles <= g_ws.tiles) return true;
    release();
    const size_t slots = static_cast<size_t>(ntiles) * kTile;
    if (cudaMalloc(&g_ws.rec, slots * sizeof(int2)) != cudaSuccess ||
        cudaMalloc(&g_ws.side, slots * sizeof(int2)) != cudaSuccess ||
        cudaMalloc(&g_ws.res, slots * 3 * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&g_ws.perm, slots * sizeof(unsigned short)) != cudaSuccess ||
        cudaMalloc(&g_ws.tbl, static_cast<size_t>(ntiles) * (kMaxWindows + 1) * sizeof(int)) != cudaSuccess) {
        release();
        cudaGetLastError();  // the failed allocation is handled (the direct kernel runs instead): clear it
        return false;
    }
    g_ws.tiles = ntiles;
    return true;
}

}  // namespace

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    if (ntris <= 0) return;
    const uintptr_t bits = reinterpret_cast<uintptr_t>(verts) | reinterpret_cast<uintptr_t>(tris) |
                           reinterpret_cast<uintptr_t>(normals) | reinterpret_cast<uintptr_t>(areas);
    const long long ntiles = (ntris + static_cast<long long>(kTile) - 1) / kTile;
    if ((bits & 15) != 0 || !reserve(ntiles)) {
        triangle_normals_direct<<<static_cast<unsigned>((ntris + 255LL) / 256), 256>>>(ntris, verts, tris, normals,
                                                                                        areas);
        return;
    }
    const long long nv = nverts > 0 ? nverts : 1;
    int shift = kMinShift;
    while (((nv - 1) >> shift) + 1 > kMaxWindows) ++shift;
    const int nb = static_cast<int>(((nv - 1) >> shift) + 1);
    const int groups = static_cast<int>((ntiles + kRunTiles - 1) / kRunTiles);
    sort_tiles<<<static_cast<unsigned>(ntiles), kSortThreads, 3 * kTile * sizeof(int)>>>(
        ntris, tris, shift, nb, g_ws.rec, g_ws.side, g_ws.perm, g_ws.tbl);
    cross_runs<<<static_cast<unsigned>(nb) * groups, kCrossThreads>>>(static_cast<int>(ntiles), nb, groups,
                                                                       nverts - 1, verts, g_ws.tbl, g_ws.rec,
                                                                       g_ws.side, g_ws.res);
    unsort_tiles<<<static_cast<unsigned>(ntiles), kFinishThreads, 3 * kTile * sizeof(float)>>>(ntris, g_ws.res,
                                                                                               g_ws.perm, normals, areas);
}
