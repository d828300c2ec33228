// steps: algorithmic_change, atomic_privatization, vectorized_access, shared_memory_tiling
// The triangles come in shuffled order, so naive.cu's three vertex gathers per triangle land at random
// in 182 MB of vertices (3.6x the L2): each misses L2 three times in four and pulls a whole DRAM burst
// for 12 useful bytes, ~5 GB of random sectors at the bench size. This kernel never gathers from DRAM
// at random (algorithmic_change: two counting-sort distributions instead of one random gather):
//   1. count the triangles per vertex bucket (the first vertex id's top bits, NB buckets of 2^sh1 ids);
//   2. copy each triangle (t, a, b, c) into its vertex bucket's segment of a workspace;
//   3. walk the workspace in bucket order: a bucket's first vertices are a window of a few MB, and in
//      a mesh whose triangles' ids lie close together (as a grid's rows do; the usual case) so are
//      the others, so the gathers hit L2 and each vertex crosses DRAM about once; each triangle's
//      cross product goes, tagged with t, into its triangle bucket (NB ranges of 2^sh2 consecutive t);
//   4. walk that in triangle-bucket order, normalizing and storing normals and areas: each bucket's
//      outputs are an 8 MB window of the output arrays, so L2 merges the scattered stores into whole
//      sectors before they reach DRAM.
// Every pass streams: ~3.2 GB at the bench size instead of ~5 GB of random sectors. In passes 2 and 3 a
// block counts its items per bucket in shared memory (the shared atomic's old value is the item's
// rank) and reserves each bucket's run with one global atomic (atomic_privatization); the block then
// stages its items in shared memory sorted by bucket (shared_memory_tiling), so consecutive threads
// write consecutive slots of a run and every workspace store coalesces. vectorized_access: records are
// 16 bytes, moved as int4; a vertex is one float4 (and a float2 for half of them), a normal one float2
// and one float. The normal and area use naive.cu's float arithmetic on the same values.
#include <cstdint>

namespace {

constexpr int NB = 64;      // buckets per distribution
constexpr int TPB = 256;    // threads per block
constexpr int CHUNK = 2048; // items per block in the distributions (TPB * 8)

struct Workspace {
    int4* by_vertex = nullptr;    // (t, a, b, c) in vertex-bucket order
    int4* by_triangle = nullptr;  // (t, cross product) in triangle-bucket order
    int* counters = nullptr;      // count[NB], cursor_v[NB], cursor_t[NB]
    long long capacity = 0;       // triangles the records hold
};
Workspace g_ws;

__device__ __forceinline__ int bucket_of(int id, int sh) {
    return min(static_cast<int>(static_cast<unsigned>(id) >> sh), NB - 1);
}

// Pass 1: triangles per vertex bucket (bucket of the first vertex id).
__global__ void count_by_vertex(int ntris, const int* tris, int sh, int* count) {
    __shared__ int local[NB];
    if (threadIdx.x < NB) local[threadIdx.x] = 0;
    __syncthreads();
    const long long first = static_cast<long long>(blockIdx.x) * CHUNK;
    const long long last = min(first + CHUNK, static_cast<long long>(ntris));
    for (long long t = first + threadIdx.x; t < last; t += TPB) atomicAdd(&local[bucket_of(tris[3 * t], sh)], 1);
    __syncthreads();
    if (threadIdx.x < NB && local[threadIdx.x] > 0) atomicAdd(&count[threadIdx.x], local[threadIdx.x]);
}

// Between the passes: each vertex bucket's first slot, and each triangle bucket's (its first t).
__global__ void bucket_starts(const int* count, int* cursor_v, int* cursor_t, int sh2) {
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int b = 0; b < NB; ++b) {
            cursor_v[b] = sum;
            sum += count[b];
            cursor_t[b] = b << sh2;  // triangle bucket b holds exactly t in [b << sh2, (b+1) << sh2)
        }
    }
}

// After a block's counts: each bucket's first slot in the block's staging (start, a prefix sum of the
// counts) and in the workspace (base, one global atomic per bucket the block has items of).
__device__ __forceinline__ void reserve_runs(const int* local, int* start, int* base, int* cursor) {
    if (threadIdx.x < NB)
        base[threadIdx.x] = local[threadIdx.x] > 0 ? atomicAdd(&cursor[threadIdx.x], local[threadIdx.x]) : 0;
    if (threadIdx.x == NB) {
        int sum = 0;
        for (int b = 0; b < NB; ++b) {
            start[b] = sum;
            sum += local[b];
        }
    }
}

// Pass 2: copy each triangle into its vertex bucket. The block's ranks (shared atomics) are kept in
// shared memory between counting and staging; the ids are read again for the staging (L1 hits).
__global__ void scatter_by_vertex(int ntris, const int* tris, int sh, int* cursor_v, int4* by_vertex) {
    __shared__ int local[NB], start[NB], base[NB];
    __shared__ unsigned short rank[CHUNK];
    __shared__ int4 staged[CHUNK];
    if (threadIdx.x < NB) local[threadIdx.x] = 0;
    __syncthreads();
    const long long first = static_cast<long long>(blockIdx.x) * CHUNK;
    const int n = static_cast<int>(min(static_cast<long long>(CHUNK), ntris - first));
    for (int k = threadIdx.x; k < n; k += TPB)
        rank[k] = static_cast<unsigned short>(atomicAdd(&local[bucket_of(tris[3 * (first + k)], sh)], 1));
    __syncthreads();
    reserve_runs(local, start, base, cursor_v);
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += TPB) {
        const long long t = first + k;
        const int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
        staged[start[bucket_of(a, sh)] + rank[k]] = make_int4(static_cast<int>(t), a, b, c);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += TPB) {
        const int4 r = staged[k];
        const int bucket = bucket_of(r.y, sh);
        by_vertex[base[bucket] + (k - start[bucket])] = r;
    }
}

// Vertex v's record is floats [3v, 3v+3) of verts. With verts 16-byte aligned, the aligned float4 at
// base = 4 * floor(3v / 4) holds the record when r = 3v % 4 <= 1; otherwise the record runs into the next
// chunk and a float2 at base + 4 supplies the rest: 1.5 L1 lookups per record instead of 3 scalar ones.
// Both stay inside the array when 3v + 6 <= 3 * nverts (every vertex but the last); the last one, and
// every vertex of an unaligned array, is read as three floats. The loads are issued here and the
// record picked out later, so a thread's loads are all in flight before it waits on any.
__device__ __forceinline__ void fetch_vertex(const float* verts, int v, long long nflt, bool vec, float4& c,
                                             float2& d) {
    const long long off = 3LL * v;
    d = make_float2(0.0f, 0.0f);
    if (vec && off + 6 <= nflt) {
        const long long base = off & ~3LL;
        c = *reinterpret_cast<const float4*>(verts + base);
        if (off - base >= 2) d = *reinterpret_cast<const float2*>(verts + base + 4);
    } else {
        c = make_float4(verts[off], verts[off + 1], verts[off + 2], 0.0f);  // picked with r = 0 below
    }
}

__device__ __forceinline__ void pick_vertex(int v, const float4& c, const float2& d, long long nflt, bool vec,
                                            float* p) {
    const long long off = 3LL * v;
    const int r = vec && off + 6 <= nflt ? static_cast<int>(off & 3LL) : 0;  // the record's first float in c
    const bool odd = r & 1, high = r & 2;
    p[0] = high ? (odd ? c.w : c.z) : (odd ? c.y : c.x);
    p[1] = high ? (odd ? d.x : c.w) : (odd ? c.z : c.y);
    p[2] = high ? (odd ? d.y : d.x) : (odd ? c.w : c.z);
}

// Pass 3: cross products in vertex-bucket order (gathers hit L2), sent to their triangle buckets.
__global__ void cross_by_triangle(int ntris, const float* verts, long long nflt, bool vec, const int4* by_vertex,
                                  int sh2, int* cursor_t, int4* by_triangle) {
    __shared__ int local[NB], start[NB], base[NB];
    __shared__ unsigned short rank[CHUNK];
    __shared__ int4 staged[CHUNK];
    if (threadIdx.x < NB) local[threadIdx.x] = 0;
    __syncthreads();
    const long long first = static_cast<long long>(blockIdx.x) * CHUNK;
    const int n = static_cast<int>(min(static_cast<long long>(CHUNK), ntris - first));
    for (int k = threadIdx.x; k < n; k += TPB)
        rank[k] = static_cast<unsigned short>(atomicAdd(&local[bucket_of(by_vertex[first + k].x, sh2)], 1));
    __syncthreads();
    reserve_runs(local, start, base, cursor_t);
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += TPB) {
        const int4 r = by_vertex[first + k];
        float4 c4[3];
        float2 c2[3];
        const int ids[3] = {r.y, r.z, r.w};
        for (int v = 0; v < 3; ++v) fetch_vertex(verts, ids[v], nflt, vec, c4[v], c2[v]);
        float a[3], b[3], c[3];
        pick_vertex(ids[0], c4[0], c2[0], nflt, vec, a);
        pick_vertex(ids[1], c4[1], c2[1], nflt, vec, b);
        pick_vertex(ids[2], c4[2], c2[2], nflt, vec, c);
        // naive.cu's arithmetic
        float e1x = b[0] - a[0], e1y = b[1] - a[1], e1z = b[2] - a[2];
        float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
        float nx = e1y * e2z - e1z * e2y;
        float ny = e1z * e2x - e1x * e2z;
        float nz = e1x * e2y - e1y * e2x;
        staged[start[bucket_of(r.x, sh2)] + rank[k]] =
            make_int4(r.x, __float_as_int(nx), __float_as_int(ny), __float_as_int(nz));
    }
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += TPB) {
        const int4 r = staged[k];
        const int bucket = bucket_of(r.x, sh2);
        by_triangle[base[bucket] + (k - start[bucket])] = r;
    }
}

// Pass 4: normals and areas, in triangle-bucket order (the stores of a bucket share an 8 MB window).
// With normals 8-byte aligned, a normal is one float2 and one float store (the float2 first for an
// even t, whose 3t is even, last for an odd t): three stores a triangle with the area instead of four.
__global__ void finish(int ntris, const int4* by_triangle, bool vec, float* normals, float* areas) {
    const long long j = static_cast<long long>(blockIdx.x) * TPB + threadIdx.x;
    if (j >= ntris) return;
    const int4 r = by_triangle[j];
    const long long t = r.x;
    const float nx = __int_as_float(r.y), ny = __int_as_float(r.z), nz = __int_as_float(r.w);
    // naive.cu's arithmetic
    float len = sqrtf(nx * nx + ny * ny + nz * nz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    const float ox = nx * inv, oy = ny * inv, oz = nz * inv;
    float* n = normals + 3 * t;
    if (vec) {
        const bool even = (t & 1) == 0;
        *reinterpret_cast<float2*>(n + (even ? 0 : 1)) = even ? make_float2(ox, oy) : make_float2(oy, oz);
        n[even ? 2 : 0] = even ? oz : ox;
    } else {
        n[0] = ox;
        n[1] = oy;
        n[2] = oz;
    }
    areas[t] = 0.5f * len;
}

int shift_for(long long n) {  // the least shift that maps ids 0 .. n-1 onto at most NB buckets
    int sh = 0;
    while (((n - 1) >> sh) >= NB) ++sh;
    return sh;
}

}  // namespace

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    if (ntris <= 0) return;
    // The workspace outlives the call (as in csr_to_csc): it grows when a larger mesh comes.
    if (ntris > g_ws.capacity) {
        if (g_ws.by_vertex) {
            cudaFree(g_ws.by_vertex);
            cudaFree(g_ws.by_triangle);
        }
        cudaMalloc(&g_ws.by_vertex, sizeof(int4) * static_cast<size_t>(ntris));
        cudaMalloc(&g_ws.by_triangle, sizeof(int4) * static_cast<size_t>(ntris));
        g_ws.capacity = ntris;
    }
    if (!g_ws.counters) cudaMalloc(&g_ws.counters, sizeof(int) * 3 * NB);
    int* count = g_ws.counters;
    int* cursor_v = count + NB;
    int* cursor_t = count + 2 * NB;
    const int sh1 = shift_for(nverts > 0 ? nverts : 1), sh2 = shift_for(ntris);
    const unsigned chunks = static_cast<unsigned>((ntris + CHUNK - 1LL) / CHUNK);
    cudaMemsetAsync(count, 0, sizeof(int) * NB);
    count_by_vertex<<<chunks, TPB>>>(ntris, tris, sh1, count);
    bucket_starts<<<1, 32>>>(count, cursor_v, cursor_t, sh2);
    scatter_by_vertex<<<chunks, TPB>>>(ntris, tris, sh1, cursor_v, g_ws.by_vertex);
    const bool verts16 = (reinterpret_cast<std::uintptr_t>(verts) & 15u) == 0;
    const bool normals8 = (reinterpret_cast<std::uintptr_t>(normals) & 7u) == 0;
    cross_by_triangle<<<chunks, TPB>>>(ntris, verts, 3LL * nverts, verts16, g_ws.by_vertex, sh2, cursor_t,
                                       g_ws.by_triangle);
    finish<<<static_cast<unsigned>((ntris + TPB - 1LL) / TPB), TPB>>>(ntris, g_ws.by_triangle, normals8, normals,
                                                                       areas);
}
