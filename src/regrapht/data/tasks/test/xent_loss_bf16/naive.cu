#include <cuda_bf16.h>

// One thread per row (token): a pass for the maximum, a pass for the shifted exponential sum.
__global__ void xent_per_row(int rows, int vocab, const __nv_bfloat16* logits, const int* labels, float* loss) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const int target = labels[r];
    if (target < 0) {
        loss[r] = 0.0f;
        return;
    }
    const __nv_bfloat16* z = logits + (long long)r * vocab;
    float top = __bfloat162float(z[0]);
    for (int j = 1; j < vocab; ++j) top = fmaxf(top, __bfloat162float(z[j]));
    float mass = 0.0f;
    for (int j = 0; j < vocab; ++j) mass += expf(__bfloat162float(z[j]) - top);
    loss[r] = top + logf(mass) - __bfloat162float(z[target]);
}

void xent_loss_bf16(int rows, int vocab, const unsigned short* logits, const int* labels, float* loss) {
    if (rows > 0)
        xent_per_row<<<(rows + 255) / 256, 256>>>(rows, vocab, reinterpret_cast<const __nv_bfloat16*>(logits), labels,
                                                  loss);
}
