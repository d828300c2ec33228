// steps: vectorized_access, thread_coarsening
// Four consecutive points per thread: one 16-byte load per quaternion and one float4 per
// coordinate array in and out (when the arrays are 16-byte aligned, as cudaMalloc's are; a scalar
// path covers the rest), so each warp moves whole 512-byte lines with a quarter of the
// instructions.
#include <cstdint>

__device__ __forceinline__ void quat_rotate_one(float4 q, float p0, float p1, float p2, float& o0, float& o1,
                                                float& o2) {
    const float t0 = 2.0f * (q.z * p2 - q.w * p1);
    const float t1 = 2.0f * (q.w * p0 - q.y * p2);
    const float t2 = 2.0f * (q.y * p1 - q.z * p0);
    o0 = p0 + q.x * t0 + (q.z * t2 - q.w * t1);
    o1 = p1 + q.x * t1 + (q.w * t0 - q.y * t2);
    o2 = p2 + q.x * t2 + (q.y * t1 - q.z * t0);
}

__global__ void quat_rotate_vec4(int groups, const float4* __restrict__ quat, const float4* __restrict__ px,
                                 const float4* __restrict__ py, const float4* __restrict__ pz, float4* ox, float4* oy,
                                 float4* oz) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const float4 x = px[g], y = py[g], z = pz[g];
    const float4 q0 = quat[4 * g], q1 = quat[4 * g + 1], q2 = quat[4 * g + 2], q3 = quat[4 * g + 3];
    float4 a, b, c;
    quat_rotate_one(q0, x.x, y.x, z.x, a.x, b.x, c.x);
    quat_rotate_one(q1, x.y, y.y, z.y, a.y, b.y, c.y);
    quat_rotate_one(q2, x.z, y.z, z.z, a.z, b.z, c.z);
    quat_rotate_one(q3, x.w, y.w, z.w, a.w, b.w, c.w);
    ox[g] = a;
    oy[g] = b;
    oz[g] = c;
}

__global__ void quat_rotate_scalar(int first, int n, const float* __restrict__ quat, const float* __restrict__ px,
                                   const float* __restrict__ py, const float* __restrict__ pz, float* ox, float* oy,
                                   float* oz) {
    const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 q = make_float4(quat[4 * i], quat[4 * i + 1], quat[4 * i + 2], quat[4 * i + 3]);
    quat_rotate_one(q, px[i], py[i], pz[i], ox[i], oy[i], oz[i]);
}

void quat_rotate_points(int n, const float* quat, const float* px, const float* py, const float* pz, float* ox,
                        float* oy, float* oz) {
    if (n <= 0) return;
    const void* ptrs[] = {quat, px, py, pz, ox, oy, oz};
    bool aligned = true;
    for (const void* p : ptrs) aligned = aligned && (reinterpret_cast<uintptr_t>(p) % 16 == 0);
    const int groups = aligned ? n / 4 : 0;
    if (groups > 0)
        quat_rotate_vec4<<<(groups + 255) / 256, 256>>>(groups, reinterpret_cast<const float4*>(quat),
                                                        reinterpret_cast<const float4*>(px),
                                                        reinterpret_cast<const float4*>(py),
                                                        reinterpret_cast<const float4*>(pz), reinterpret_cast<float4*>(ox),
                                                        reinterpret_cast<float4*>(oy), reinterpret_cast<float4*>(oz));
    const int rest = n - 4 * groups;
    if (rest > 0) quat_rotate_scalar<<<(rest + 255) / 256, 256>>>(4 * groups, n, quat, px, py, pz, ox, oy, oz);
}
