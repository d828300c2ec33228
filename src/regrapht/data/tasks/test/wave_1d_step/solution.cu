// steps: parallelize, vectorized_access
// Each thread updates four consecutive points with 16-byte loads and stores of u, u_prev, courant2 and
// u_next; only the two outer neighbours are scalar loads. cudaMalloc pointers are 256-byte aligned.
__device__ __forceinline__ float wave_point(float left, float c, float right, float prev, float k2,
                                            float damping) {
    float lap = left - 2.0f * c + right;
    float velocity = c - prev;
    return c + velocity + k2 * lap - damping * velocity;
}

__global__ void wave_vec4(int n, const float* __restrict__ u, const float* __restrict__ u_prev,
                          const float* __restrict__ courant2, float damping, float* __restrict__ u_next) {
    long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    long long i0 = q * 4;
    if (i0 >= n) return;
    if (i0 + 4 <= n) {
        float4 c = reinterpret_cast<const float4*>(u)[q];
        float4 p = reinterpret_cast<const float4*>(u_prev)[q];
        float4 k = reinterpret_cast<const float4*>(courant2)[q];
        float left = (i0 > 0) ? u[i0 - 1] : 0.0f;
        float right = (i0 + 4 < n) ? u[i0 + 4] : 0.0f;
        float4 r;
        r.x = wave_point(left, c.x, c.y, p.x, k.x, damping);
        r.y = wave_point(c.x, c.y, c.z, p.y, k.y, damping);
        r.z = wave_point(c.y, c.z, c.w, p.z, k.z, damping);
        r.w = wave_point(c.z, c.w, right, p.w, k.w, damping);
        if (i0 == 0) r.x = 0.0f;
        if (i0 + 3 == n - 1) r.w = 0.0f;
        reinterpret_cast<float4*>(u_next)[q] = r;
    } else {
        for (long long i = i0; i < n; ++i) {
            if (i == 0 || i == n - 1) {
                u_next[i] = 0.0f;
            } else {
                u_next[i] = wave_point(u[i - 1], u[i], u[i + 1], u_prev[i], courant2[i], damping);
            }
        }
    }
}

void wave_1d_step(int n, const float* u, const float* u_prev, const float* courant2, float damping,
                  float* u_next) {
    if (n <= 0) return;
    long long quads = (static_cast<long long>(n) + 3) / 4;
    int threads = 256;
    int blocks = static_cast<int>((quads + threads - 1) / threads);
    wave_vec4<<<blocks, threads>>>(n, u, u_prev, courant2, damping, u_next);
}
