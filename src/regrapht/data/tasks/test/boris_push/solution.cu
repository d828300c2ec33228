// steps: parallelize, memory_coalescing
// The stride-6 and stride-3 records are staged through shared memory: the block loads its contiguous
// chunk of state and efield with consecutive threads on consecutive floats, each thread updates one
// particle from shared memory, and the chunk is written back the same coalesced way.
constexpr int BLOCK = 256;

__global__ void __launch_bounds__(BLOCK) boris_staged(int n, float* __restrict__ state,
                                                       const float* __restrict__ efield, float qm_half_dt,
                                                       float dt, float tx, float ty, float tz, float sx, float sy,
                                                       float sz) {
    __shared__ float s_state[6 * BLOCK];
    __shared__ float s_e[3 * BLOCK];
    const long long first = static_cast<long long>(blockIdx.x) * BLOCK;
    const int count = static_cast<int>(min(static_cast<long long>(BLOCK), n - first));
    float* g_state = state + 6 * first;
    const float* g_e = efield + 3 * first;
    for (int j = threadIdx.x; j < 6 * count; j += BLOCK) s_state[j] = g_state[j];
    for (int j = threadIdx.x; j < 3 * count; j += BLOCK) s_e[j] = g_e[j];
    __syncthreads();
    if (threadIdx.x < count) {
        float* p = s_state + 6 * threadIdx.x;
        const float* e = s_e + 3 * threadIdx.x;
        float vx = p[3] + qm_half_dt * e[0];
        float vy = p[4] + qm_half_dt * e[1];
        float vz = p[5] + qm_half_dt * e[2];
        float px = vx + (vy * tz - vz * ty);
        float py = vy + (vz * tx - vx * tz);
        float pz = vz + (vx * ty - vy * tx);
        vx += py * sz - pz * sy;
        vy += pz * sx - px * sz;
        vz += px * sy - py * sx;
        vx += qm_half_dt * e[0];
        vy += qm_half_dt * e[1];
        vz += qm_half_dt * e[2];
        p[0] += vx * dt;
        p[1] += vy * dt;
        p[2] += vz * dt;
        p[3] = vx;
        p[4] = vy;
        p[5] = vz;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < 6 * count; j += BLOCK) g_state[j] = s_state[j];
}

void boris_push(int n, float* state, const float* efield, float bx, float by, float bz, float qm_half_dt, float dt) {
    if (n <= 0) return;
    float tx = qm_half_dt * bx, ty = qm_half_dt * by, tz = qm_half_dt * bz;
    float scale = 2.0f / (1.0f + tx * tx + ty * ty + tz * tz);
    int blocks = static_cast<int>((static_cast<long long>(n) + BLOCK - 1) / BLOCK);
    boris_staged<<<blocks, BLOCK>>>(n, state, efield, qm_half_dt, dt, tx, ty, tz, scale * tx, scale * ty,
                                    scale * tz);
}
