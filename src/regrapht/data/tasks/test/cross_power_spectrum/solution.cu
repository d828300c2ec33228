// steps: parallelize, vectorized_access
// Each thread handles two bins: one 16-byte load per spectrum, one 16-byte store of the two whitened
// pairs and one 8-byte store of the two magnitudes. An odd last bin is done with scalar accesses.
__device__ __forceinline__ void whiten(float ar, float ai, float br, float bi, float& cr, float& ci, float& mag) {
    const float re = ar * br + ai * bi;
    const float im = ai * br - ar * bi;
    mag = sqrtf(re * re + im * im);
    if (mag > 1e-20f) {
        cr = re / mag;
        ci = im / mag;
    } else {
        cr = 0.0f;
        ci = 0.0f;
    }
}

__global__ void cross_power_pairs(int n, const float4* __restrict__ a, const float4* __restrict__ b,
                                  float4* __restrict__ cross, float2* __restrict__ magnitude) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;  // bins 2p and 2p+1
    if (p >= n / 2) return;
    const float4 va = a[p];
    const float4 vb = b[p];
    float4 out;
    float2 mag;
    whiten(va.x, va.y, vb.x, vb.y, out.x, out.y, mag.x);
    whiten(va.z, va.w, vb.z, vb.w, out.z, out.w, mag.y);
    cross[p] = out;
    magnitude[p] = mag;
}

__global__ void cross_power_last(int n, const float* spec_a, const float* spec_b, float* cross, float* magnitude) {
    const long long k = n - 1;
    float cr, ci, mag;
    whiten(spec_a[2 * k], spec_a[2 * k + 1], spec_b[2 * k], spec_b[2 * k + 1], cr, ci, mag);
    cross[2 * k] = cr;
    cross[2 * k + 1] = ci;
    magnitude[k] = mag;
}

void cross_power_spectrum(int n, const float* spec_a, const float* spec_b, float* cross, float* magnitude) {
    if (n <= 0) return;
    const int pairs = n / 2;
    if (pairs > 0)
        cross_power_pairs<<<(pairs + 255) / 256, 256>>>(n, reinterpret_cast<const float4*>(spec_a),
                                                        reinterpret_cast<const float4*>(spec_b),
                                                        reinterpret_cast<float4*>(cross),
                                                        reinterpret_cast<float2*>(magnitude));
    if (n % 2) cross_power_last<<<1, 1>>>(n, spec_a, spec_b, cross, magnitude);
}
