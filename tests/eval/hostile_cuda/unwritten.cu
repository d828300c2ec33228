// Launches nothing: whatever the output memory held is returned.
extern "C" void vec_scale(int n, float a, const float* x, float* out) {}
