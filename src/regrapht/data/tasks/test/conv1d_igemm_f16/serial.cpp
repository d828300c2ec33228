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
// starting at step t; accumulated in double, filters transposed so that the inner loop runs over
// independent output channels (it vectorizes).
void conv1d_igemm_f16(int batch, int Lout, int Cin, int Cout, int K, const unsigned short* x, const unsigned short* w,
                      const float* bias, float* y) {
    const int Lin = Lout + K - 1, span = K * Cin;
    std::vector<double> xf(static_cast<size_t>(batch) * Lin * Cin), wt(static_cast<size_t>(span) * Cout), acc(Cout);
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = half_to_float(x[i]);
    for (int co = 0; co < Cout; ++co)
        for (int j = 0; j < span; ++j) wt[static_cast<size_t>(j) * Cout + co] = half_to_float(w[static_cast<size_t>(co) * span + j]);
    for (int b = 0; b < batch; ++b)
        for (int t = 0; t < Lout; ++t) {
            const double* in = &xf[(static_cast<size_t>(b) * Lin + t) * Cin];
            for (int co = 0; co < Cout; ++co) acc[co] = bias[co];
            for (int j = 0; j < span; ++j) {
                const double v = in[j];
                const double* f = &wt[static_cast<size_t>(j) * Cout];
                for (int co = 0; co < Cout; ++co) acc[co] += v * f[co];
            }
            float* out = y + (static_cast<long long>(b) * Lout + t) * Cout;
            for (int co = 0; co < Cout; ++co) out[co] = static_cast<float>(acc[co]);
        }
}
