// steps: vectorized_access, warp_divergence_elimination
// Each thread updates four cells from float4 loads of u and courant and one float4 store; the two
// outer neighbours are scalar loads (wrapping at the ends). The upwind choice is a select between the
// two one-sided differences, not a branch, so lanes with opposite velocities do not diverge.
__device__ __forceinline__ float upwind(float left, float centre, float right, float c) {
    float backward = centre - left;
    float forward = right - centre;
    return centre - c * (c >= 0.0f ? backward : forward);
}

__global__ void upwind_vec4(int n, const float* __restrict__ u, const float* __restrict__ courant,
                            float* __restrict__ u_next) {
    long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long i0 = 4 * q;
    if (i0 >= n) return;
    if (i0 + 4 <= n) {
        float4 v = reinterpret_cast<const float4*>(u)[q];
        float4 c = reinterpret_cast<const float4*>(courant)[q];
        float left = u[i0 == 0 ? n - 1 : i0 - 1];
        float right = u[i0 + 4 == n ? 0 : i0 + 4];
        float4 r;
        r.x = upwind(left, v.x, v.y, c.x);
        r.y = upwind(v.x, v.y, v.z, c.y);
        r.z = upwind(v.y, v.z, v.w, c.z);
        r.w = upwind(v.z, v.w, right, c.w);
        reinterpret_cast<float4*>(u_next)[q] = r;
    } else {
        for (long long i = i0; i < n; ++i) {
            float left = u[i == 0 ? n - 1 : i - 1];
            float right = u[i == n - 1 ? 0 : i + 1];
            u_next[i] = upwind(left, u[i], right, courant[i]);
        }
    }
}

void upwind_advection_1d(int n, const float* u, const float* courant, float* u_next) {
    if (n <= 0) return;
    long long quads = ((long long)n + 3) / 4;
    upwind_vec4<<<(int)((quads + 255) / 256), 256>>>(n, u, courant, u_next);
}
