// steps: parallelize, shared_memory_tiling, vectorized_access, fast_math_intrinsics, loop_unrolling
// Classic tiled all-pairs: each block stages TILE bodies in shared memory with one float4 load per
// thread, every thread runs its body against the whole tile (unrolled), the self term runs through the
// loop branch-free (it adds no force) and its potential is taken back once at the end, and 1/sqrt uses rsqrtf.
constexpr int TILE = 256;

__global__ void __launch_bounds__(TILE) nbody_tiled(int n, const float4* __restrict__ bodies, float eps2,
                                                     float* __restrict__ accel, float* __restrict__ potential) {
    __shared__ float4 tile[TILE];
    const int i = blockIdx.x * TILE + threadIdx.x;
    const float4 me = (i < n) ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f, phi = 0.0f;
    for (int start = 0; start < n; start += TILE) {
        const int j = start + threadIdx.x;
        const float4 b = (j < n) ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // mass 0: no contribution
        __syncthreads();
        tile[threadIdx.x] = b;
        __syncthreads();
#pragma unroll 16
        for (int k = 0; k < TILE; ++k) {
            const float4 o = tile[k];
            const float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv_r = rsqrtf(r2);
            const float m_inv_r = o.w * inv_r;
            const float m_inv_r3 = m_inv_r * inv_r * inv_r;
            ax += m_inv_r3 * dx;
            ay += m_inv_r3 * dy;
            az += m_inv_r3 * dz;
            phi -= m_inv_r;
        }
    }
    // The self term adds nothing to accel (dx = dy = dz = 0); remove its potential exactly as it was added.
    phi += me.w * rsqrtf(eps2);
    if (i < n) {
        accel[3 * i] = ax;
        accel[3 * i + 1] = ay;
        accel[3 * i + 2] = az;
        potential[i] = phi;
    }
}

void nbody_softened(int n, const float* bodies, float eps2, float* accel, float* potential) {
    if (n <= 0) return;
    nbody_tiled<<<(n + TILE - 1) / TILE, TILE>>>(n, reinterpret_cast<const float4*>(bodies), eps2, accel, potential);
}
