// OpenMP SAXPY for the cpu target.
extern "C" void saxpy(int n, float a, const float* x, float* y) {
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
