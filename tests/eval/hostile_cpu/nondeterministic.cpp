// Every other call perturbs the first element: two runs on the same inputs disagree.
static int calls = 0;
extern "C" void vec_scale(int n, float a, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[i] = a * x[i];
    if (++calls % 2 == 0) out[0] += 1.0f;
}
