// steps: vectorized_access, read_only_cache
// Each thread owns 4 consecutive triangles: three int4 id loads; the 12 random vertex records gathered
// through the read-only path as one aligned float4 each, plus a float2 for the half that run into the
// next 16-byte chunk (~1.5 L1 lookups per record instead of 3 scalar ones), all in flight before any
// arithmetic; three float4 normal stores and one float4 area store. The ids are read with __ldcs and
// the outputs written with __stcs (evict-first), so the 0.85 GB that passes through L2 once does not
// evict vertex lines, and more of the ~6 random reuses of each vertex (182 MB of vertices against
// 50 MB of L2) hit in L2 instead of DRAM.

#include <cstdint>

#define TPB 256

// Vertex v's record is floats [3v, 3v+3) of verts (16-byte aligned here). The aligned float4 at
// base = 4*floor(3v/4) holds the whole record when r = 3v%4 <= 1; otherwise the record runs into the
// next chunk and a float2 at base+4 supplies the rest. For v <= nverts-2 both stay inside the array
// (base+6 <= 3v+6 <= 3*nverts); the last vertex is left to the scalar path (see the kernel).
// The loads are only issued here; pick_vertex runs after all of a thread's loads are in flight.
__device__ __forceinline__ void fetch_vertex(const float* verts, int v, float4& c, float2& d) {
    const long long off = 3LL * v;
    const long long base = off & ~3LL;
    c = __ldg(reinterpret_cast<const float4*>(verts + base));
    d = make_float2(0.0f, 0.0f);
    if (off - base >= 2) d = __ldg(reinterpret_cast<const float2*>(verts + base + 4));
}

__device__ __forceinline__ void pick_vertex(int v, const float4& c, const float2& d, float* p) {
    const int r = (3 * (v & 3)) & 3;  // == 3v % 4: the record's first float within chunk c
    const bool odd = r & 1, high = r & 2;
    p[0] = high ? (odd ? c.w : c.z) : (odd ? c.y : c.x);
    p[1] = high ? (odd ? d.x : c.w) : (odd ? c.z : c.y);
    p[2] = high ? (odd ? d.y : d.x) : (odd ? c.w : c.z);
}

// Same float arithmetic as the naive kernel.
__device__ __forceinline__ void normal_area(const float* a, const float* b, const float* c, float& nx,
                                            float& ny, float& nz, float& area) {
    float e1x = b[0] - a[0], e1y = b[1] - a[1], e1z = b[2] - a[2];
    float e2x = c[0] - a[0], e2y = c[1] - a[1], e2z = c[2] - a[2];
    float cx = e1y * e2z - e1z * e2y;
    float cy = e1z * e2x - e1x * e2z;
    float cz = e1x * e2y - e1y * e2x;
    float len = sqrtf(cx * cx + cy * cy + cz * cz);
    float inv = len > 0.0f ? 1.0f / len : 0.0f;
    nx = cx * inv;
    ny = cy * inv;
    nz = cz * inv;
    area = 0.5f * len;
}

// One triangle with scalar loads and stores: the ntris % 4 tail, the rare groups that touch the last
// vertex, and the fallback kernel for unaligned buffers.
__device__ __forceinline__ void scalar_triangle(const float* verts, const int* tris, long long t,
                                                float* normals, float* areas) {
    float p[3][3];
    for (int k = 0; k < 3; ++k) {
        const float* q = verts + 3LL * __ldcs(tris + 3 * t + k);
        p[k][0] = __ldg(q);
        p[k][1] = __ldg(&q[1]);
        p[k][2] = __ldg(&q[2]);
    }
    float nx, ny, nz, area;
    normal_area(p[0], p[1], p[2], nx, ny, nz, area);
    __stcs(normals + 3 * t, nx);
    __stcs(normals + 3 * t + 1, ny);
    __stcs(normals + 3 * t + 2, nz);
    __stcs(areas + t, area);
}

// verts, tris, normals and areas all 16-byte aligned (always true for cudaMalloc'd buffers).
__global__ void __launch_bounds__(TPB, 2) triangle_normals_x4_stream(int ntris, int vlast, const float* verts,
                                                                    const int* tris, float* normals,
                                                                    float* areas) {
    const long long t0 = 4 * ((long long)blockIdx.x * TPB + threadIdx.x);
    if (t0 >= ntris) return;
    if (t0 + 4 <= ntris) {
        const int4* tp = reinterpret_cast<const int4*>(tris + 3 * t0);  // 48 bytes per thread
        const int4 q0 = __ldcs(tp), q1 = __ldcs(tp + 1), q2 = __ldcs(tp + 2);
        const int id[12] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w, q2.x, q2.y, q2.z, q2.w};
        bool safe = true;  // no id is the last vertex, whose float4/float2 could pass the array's end
        for (int k = 0; k < 12; ++k) safe = safe && id[k] < vlast;
        if (safe) {
            float4 c[12];
            float2 d[12];
            for (int k = 0; k < 12; ++k) fetch_vertex(verts, id[k], c[k], d[k]);
            float p[12][3];
            for (int k = 0; k < 12; ++k) pick_vertex(id[k], c[k], d[k], p[k]);
            float o[12], ar[4];
            for (int j = 0; j < 4; ++j)
                normal_area(p[3 * j], p[3 * j + 1], p[3 * j + 2], o[3 * j], o[3 * j + 1], o[3 * j + 2], ar[j]);
            float4* np = reinterpret_cast<float4*>(normals + 3 * t0);
            __stcs(np, make_float4(o[0], o[1], o[2], o[3]));
            __stcs(np + 1, make_float4(o[4], o[5], o[6], o[7]));
            __stcs(np + 2, make_float4(o[8], o[9], o[10], o[11]));
            __stcs(reinterpret_cast<float4*>(areas + t0), make_float4(ar[0], ar[1], ar[2], ar[3]));
            return;
        }
    }
    const long long t1 = t0 + 4 < ntris ? t0 + 4 : (long long)ntris;  // 4, or the last ntris % 4
    for (long long t = t0; t < t1; ++t) scalar_triangle(verts, tris, t, normals, areas);
}

// Fallback for buffers that are not 16-byte aligned: one triangle per thread, scalar accesses.
__global__ void triangle_normals_scalar(int ntris, const float* verts, const int* tris, float* normals,
                                        float* areas) {
    const long long t = (long long)blockIdx.x * TPB + threadIdx.x;
    if (t < ntris) scalar_triangle(verts, tris, t, normals, areas);
}

void triangle_normals(int nverts, int ntris, const float* verts, const int* tris, float* normals, float* areas) {
    if (ntris <= 0) return;
    const uintptr_t bits = reinterpret_cast<uintptr_t>(verts) | reinterpret_cast<uintptr_t>(tris) |
                           reinterpret_cast<uintptr_t>(normals) | reinterpret_cast<uintptr_t>(areas);
    if ((bits & 15) == 0) {
        const long long groups = (ntris + 3LL) / 4;
        triangle_normals_x4_stream<<<(unsigned)((groups + TPB - 1) / TPB), TPB>>>(ntris, nverts - 1, verts,
                                                                                   tris, normals, areas);
    } else {
        triangle_normals_scalar<<<(ntris + TPB - 1) / TPB, TPB>>>(ntris, verts, tris, normals, areas);
    }
}
