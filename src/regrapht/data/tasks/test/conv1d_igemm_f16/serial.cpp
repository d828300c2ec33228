#include <cstdint>
#include <cstring>
#include <vector>

// fp16 -> fp32 by hand (IEEE binary16), so the reference needs no CUDA headers.
static float half_to_float(unsigned short h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: normalize
            int e = -1;
            do { man <<= 1; ++e; } while ((man & 0x400u) == 0);
            bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Every output is the dot product of its filter with the K*Cin contiguous channels-last inputs
// starting at step t; accumulated in double.
void conv1d_igemm_f16(int batch, int Lout, int Cin, int Cout, int K, const unsigned short* x, const unsigned short* w,
                      const float* bias, float* y) {
    const int Lin = Lout + K - 1, span = K * Cin;
    std::vector<float> xf(static_cast<size_t>(batch) * Lin * Cin), wf(static_cast<size_t>(Cout) * span);
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = half_to_float(x[i]);
    for (size_t i = 0; i < wf.size(); ++i) wf[i] = half_to_float(w[i]);
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < Lout; ++t) {
            const float* in = &xf[(static_cast<size_t>(b) * Lin + t) * Cin];
            float* out = y + (static_cast<long long>(b) * Lout + t) * Cout;
            for (int co = 0; co < Cout; ++co) {
                const float* f = &wf[static_cast<size_t>(co) * span];
                double acc = bias[co];
                for (int j = 0; j < span; ++j) acc += static_cast<double>(f[j]) * in[j];
                out[co] = static_cast<float>(acc);
            }
        }
}
