// steps: algorithmic_change, atomic_privatization
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
// thread takes one item of its block's 1024; the block counts its items per bucket in shared memory
// (the shared atomic's old value is the item's rank) and reserves each bucket's run with one global
// atomic (atomic_privatization), so a block's items of one bucket land in one contiguous run. The
// workspace records are structures of arrays (four int or float arrays), read and written with
// coalesced scalar accesses. The normal and area use naive.cu's float arithmetic on the same values.
#include <cstdint>

namespace {

constexpr int NB = 64;     // buckets per distribution
constexpr int TPB = 1024;  // threads per block, one item each in the distributions

struct Workspace {
    int* by_vertex = nullptr;    // t, a, b, c: four arrays of ntris, in vertex-bucket order
    int* by_triangle = nullptr;  // t and the cross product's bits: four arrays, in triangle-bucket order
    int* counters = nullptr;     // count[NB], cursor_v[NB], cursor_t[NB]
    long long capacity = 0;      // triangles the records hold
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
    const long long t = static_cast<long long>(blockIdx.x) * TPB + threadIdx.x;
    if (t < ntris) atomicAdd(&local[bucket_of(tris[3 * t], sh)], 1);
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

// Pass 2: copy each triangle into its vertex bucket.
__global__ void scatter_by_vertex(int ntris, const int* tris, int sh, int* cursor_v, int* by_vertex,
                                  long long stride) {
    __shared__ int local[NB], base[NB];
    if (threadIdx.x < NB) local[threadIdx.x] = 0;
    __syncthreads();
    const long long t = static_cast<long long>(blockIdx.x) * TPB + threadIdx.x;
    int a = 0, b = 0, c = 0, bucket = 0, rank = 0;
    if (t < ntris) {
        a = tris[3 * t];
        b = tris[3 * t + 1];
        c = tris[3 * t + 2];
        bucket = bucket_of(a, sh);
        rank = atomicAdd(&local[bucket], 1);
    }
    __syncthreads();
    if (threadIdx.x < NB)
        base[threadIdx.x] = local[threadIdx.x] > 0 ? atomicAdd(&cursor_v[threadIdx.x], local[threadIdx.x]) : 0;
    __syncthreads();
    if (t < ntris) {
        const long long slot = base[bucket] + rank;
        by_vertex[slot] = static_cast<int>(t);
        by_vertex[stride + slot] = a;
        by_vertex[2 * stride + slot] = b;
        by_vertex[3 * stride + slot] = c;
    }
}

// Pass 3: cross products in vertex-bucket order (the gathers hit L2), sent to their triangle buckets.
__global__ void cross_by_triangle(int ntris, const float* verts, const int* by_vertex, long long stride, int sh2,
                                  int* cursor_t, int* by_triangle) {
    __shared__ int local[NB], base[NB];
    if (threadIdx.x < NB) local[threadIdx.x] = 0;
    __syncthreads();
    const long long j = static_cast<long long>(blockIdx.x) * TPB + threadIdx.x;
    int t = 0, bucket = 0, rank = 0;
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    if (j < ntris) {
        t = by_vertex[j];
        const float* a = verts + 3LL * by_vertex[stride + j];
        const float* b = verts + 3LL * by_vertex[2 * stride + j];
        const float* c = verts + 3LL * by_vertex[3 * stride + j];
        bucket = bucket_of(t, sh2);
        rank = atomicAdd(&local[bucket], 1);
        // naive.cu's arithmetic
        float e1x = b[0] - a[0], e1y = b[1] - a[1], e1z = b[2] - a[2];
        float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
        nx = e1y * e2z - e1z * e2y;
        ny = e1z * e2x - e1x * e2z;
        nz = e1x * e2y - e1y * e2x;
    }
    __syncthreads();
    if (threadIdx.x < NB)
        base[threadIdx.x] = local[threadIdx.x] > 0 ? atomicAdd(&cursor_t[threadIdx.x], local[threadIdx.x]) : 0;
    __syncthreads();
    if (j < ntris) {
        const long long slot = base[bucket] + rank;
        by_triangle[slot] = t;
        by_triangle[stride + slot] = __float_as_int(nx);
        by_triangle[2 * stride + slot] = __float_as_int(ny);
        by_triangle[3 * stride + slot] = __float_as_int(nz);
    }
}

// Pass 4: normals and areas, in triangle-bucket order (the stores of a bucket share an 8 MB window).
__global__ void finish(int ntris, const int* by_triangle, long long stride, float* normals, float* areas) {
    const long long j = static_cast<long long>(blockIdx.x) * TPB + threadIdx.x;
    if (j >= ntris) return;
    const long long t = by_triangle[j];
    const float nx = __int_as_float(by_triangle[stride + j]), ny = __int_as_float(by_triangle[2 * stride + j]),
                nz = __int_as_float(by_triangle[3 * stride + j]);
    // naive.cu's arithmetic
    float len = sqrtf(nx * nx + ny * ny + nz * nz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    normals[3 * t] = nx * inv;
    normals[3 * t + 1] = ny * inv;
    normals[3 * t + 2] = nz * inv;
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
        cudaMalloc(&g_ws.by_vertex, sizeof(int) * 4 * static_cast<size_t>(ntris));
        cudaMalloc(&g_ws.by_triangle, sizeof(int) * 4 * static_cast<size_t>(ntris));
        g_ws.capacity = ntris;
    }
    if (!g_ws.counters) cudaMalloc(&g_ws.counters, sizeof(int) * 3 * NB);
    int* count = g_ws.counters;
    int* cursor_v = count + NB;
    int* cursor_t = count + 2 * NB;
    const long long stride = ntris;
    const int sh1 = shift_for(nverts > 0 ? nverts : 1), sh2 = shift_for(ntris);
    const unsigned blocks = static_cast<unsigned>((ntris + TPB - 1LL) / TPB);
    cudaMemsetAsync(count, 0, sizeof(int) * NB);
    count_by_vertex<<<blocks, TPB>>>(ntris, tris, sh1, count);
    bucket_starts<<<1, 32>>>(count, cursor_v, cursor_t, sh2);
    scatter_by_vertex<<<blocks, TPB>>>(ntris, tris, sh1, cursor_v, g_ws.by_vertex, stride);
    cross_by_triangle<<<blocks, TPB>>>(ntris, verts, g_ws.by_vertex, stride, sh2, cursor_t, g_ws.by_triangle);
    finish<<<blocks, TPB>>>(ntris, g_ws.by_triangle, stride, normals, areas);
}
