// Uses the wrong sign: y = y - a*x.
extern "C" void saxpy(int n, float a, const float* x, float* y) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) {
        y[i] = y[i] - a * x[i];
    }
}
