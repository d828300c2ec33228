// steps: vectorized_access, thread_coarsening
// The one-byte stores are what limit the naive port. When a row's length is a multiple of 16, each
// thread quantizes 16 consecutive elements of one row: four float4 loads and a single 16-byte store,
// one scale load and one integer division per 16 elements. Other widths use 4 elements (char4 store)
// or, for other widths, one element per thread.
__device__ __forceinline__ unsigned int quant_byte(float v, float s) {
    float r = fminf(fmaxf(rintf(v * s), -127.0f), 127.0f);
    return (unsigned int)(unsigned char)(signed char)(int)r;
}

__device__ __forceinline__ unsigned int quant4(float4 v, float s) {
    return quant_byte(v.x, s) | (quant_byte(v.y, s) << 8) | (quant_byte(v.z, s) << 16) | (quant_byte(v.w, s) << 24);
}

__global__ void quantize_16(int rows, int cols, const float* __restrict__ x, const float* __restrict__ inv_scale,
                            signed char* __restrict__ q) {
    long long chunk = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int per_row = cols / 16;
    if (chunk >= (long long)rows * per_row) return;
    int r = (int)(chunk / per_row);
    float s = __ldg(inv_scale + r);
    const float4* in = reinterpret_cast<const float4*>(x) + 4 * chunk;
    float4 a = in[0], b = in[1], c = in[2], d = in[3];
    uint4 out = make_uint4(quant4(a, s), quant4(b, s), quant4(c, s), quant4(d, s));
    reinterpret_cast<uint4*>(q)[chunk] = out;
}

__global__ void quantize_4(int rows, int cols, const float* __restrict__ x, const float* __restrict__ inv_scale,
                           signed char* __restrict__ q) {
    long long chunk = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int per_row = cols / 4;
    if (chunk >= (long long)rows * per_row) return;
    int r = (int)(chunk / per_row);
    float4 v = reinterpret_cast<const float4*>(x)[chunk];
    reinterpret_cast<unsigned int*>(q)[chunk] = quant4(v, __ldg(inv_scale + r));
}

__global__ void quantize_1(int rows, int cols, const float* __restrict__ x, const float* __restrict__ inv_scale,
                           signed char* __restrict__ q) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * cols) return;
    q[i] = (signed char)quant_byte(x[i], __ldg(inv_scale + i / cols));
}

void quantize_int8_rows(int rows, int cols, const float* x, const float* inv_scale, signed char* q) {
    long long n = (long long)rows * cols;
    if (n <= 0) return;
    if (cols % 16 == 0) {
        long long chunks = n / 16;
        quantize_16<<<(unsigned)((chunks + 255) / 256), 256>>>(rows, cols, x, inv_scale, q);
    } else if (cols % 4 == 0) {
        long long chunks = n / 4;
        quantize_4<<<(unsigned)((chunks + 255) / 256), 256>>>(rows, cols, x, inv_scale, q);
    } else {
        quantize_1<<<(unsigned)((n + 255) / 256), 256>>>(rows, cols, x, inv_scale, q);
    }
}
