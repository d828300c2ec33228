// Group-wise asymmetric int4 dequantization, as done when loading a 4-bit quantized LLM layer.
void dequantize_int4(int groups, int group_size, const unsigned char* packed, const float* scales,
                     const unsigned char* zeros, float* weights) {
    for (int g = 0; g < groups; ++g) {
        const float scale = scales[g];
        const int zero = zeros[g];
        for (int j = 0; j < group_size; ++j) {
            const long long i = static_cast<long long>(g) * group_size + j;
            const unsigned char byte = packed[i / 2];
            const int code = (i % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
            weights[i] = static_cast<float>(code - zero) * scale;
        }
    }
}
