// The serial algorithm, stage by stage over the whole batch in global memory: a bit-reversed copy of
// the samples, one launch per radix-2 stage with one thread per butterfly (twiddle computed by the
// thread), the spectrum weighting fused with the second bit-reversed copy, the inverse stages, and
// one thread per sample for the modulus. work holds the two complex buffers.
__device__ __forceinline__ int reverse_bits(int i, int logn) { return logn ? (int)(__brev(i) >> (32 - logn)) : 0; }

__global__ void load_reversed(int batch, int n, int logn, const float* x, float2* a) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * n) return;
    const long long b = idx / n;
    const int i = (int)(idx - b * n);
    a[b * n + reverse_bits(i, logn)] = make_float2(x[idx], 0.0f);
}

__global__ void butterfly_stage(int batch, int n, int half, float sign, float2* a) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * (n / 2)) return;
    const long long b = idx / (n / 2);
    const int j = (int)(idx - b * (n / 2));
    const int pos = j % half;
    const long long i0 = b * n + (j / half) * 2 * half + pos, i1 = i0 + half;
    float s, c;
    sincospif(sign * (float)pos / half, &s, &c);  // exp(sign * i * 2 pi pos / (2 half))
    const float2 u = a[i0], v = a[i1];
    const float2 t = make_float2(c * v.x - s * v.y, c * v.y + s * v.x);
    a[i0] = make_float2(u.x + t.x, u.y + t.y);
    a[i1] = make_float2(u.x - t.x, u.y - t.y);
}

__global__ void weight_reversed(int batch, int n, int logn, const float2* spectrum, float2* a) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * n) return;
    const long long b = idx / n;
    const int k = (int)(idx - b * n);
    const float h = k == 0 ? 1.0f : (2 * k < n ? 2.0f : (2 * k == n ? 1.0f : 0.0f));
    const float2 v = spectrum[idx];
    a[b * n + reverse_bits(k, logn)] = make_float2(h * v.x, h * v.y);
}

__global__ void modulus(int batch, int n, const float2* a, float* env) {
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)batch * n) return;
    env[idx] = sqrtf(a[idx].x * a[idx].x + a[idx].y * a[idx].y) / n;
}

void hilbert_envelope(int batch, int n, const float* x, float* env, float* work) {
    const long long total = (long long)batch * n;
    if (total <= 0) return;
    int logn = 0;
    while ((1 << logn) < n) ++logn;
    float2* a = reinterpret_cast<float2*>(work);
    float2* c = a + total;
    const unsigned blocks = (unsigned)((total + 255) / 256);
    const unsigned half_blocks = (unsigned)((total / 2 + 255) / 256);
    load_reversed<<<blocks, 256>>>(batch, n, logn, x, a);
    for (int half = 1; half < n; half <<= 1) butterfly_stage<<<half_blocks, 256>>>(batch, n, half, -1.0f, a);
    weight_reversed<<<blocks, 256>>>(batch, n, logn, a, c);
    for (int half = 1; half < n; half <<= 1) butterfly_stage<<<half_blocks, 256>>>(batch, n, half, 1.0f, c);
    modulus<<<blocks, 256>>>(batch, n, c, env);
}
