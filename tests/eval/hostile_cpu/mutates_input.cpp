// Correct output, but scribbles on its read-only input.
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    float* writable = const_cast<float*>(x);
    for (int i = 0; i < n; ++i) { out[i] = a * x[i]; writable[i] = 0.0f; }
}
