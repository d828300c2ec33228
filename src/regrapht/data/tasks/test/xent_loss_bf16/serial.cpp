#include <cmath>
#include <cstdint>
#include <cstring>

// A bfloat16 value is the upper half of an fp32 bit pattern.
static float widen(unsigned short h) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// loss = logsumexp(row) - row[label], shifted by the row maximum; double keeps the reference exact.
void xent_loss_bf16(int rows, int vocab, const unsigned short* logits, const int* labels, float* loss) {
    for (int r = 0; r < rows; ++r) {
        if (labels[r] < 0) {
            loss[r] = 0.0f;
            continue;
        }
        const unsigned short* z = logits + static_cast<long long>(r) * vocab;
        double top = widen(z[0]);
        for (int j = 1; j < vocab; ++j) top = std::fmax(top, static_cast<double>(widen(z[j])));
        double mass = 0.0;
        for (int j = 0; j < vocab; ++j) mass += std::exp(widen(z[j]) - top);
        loss[r] = static_cast<float>(top + std::log(mass) - widen(z[labels[r]]));
    }
}
