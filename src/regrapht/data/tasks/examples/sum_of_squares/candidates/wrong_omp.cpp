// A data race: every thread adds into one shared float without synchronization.
extern "C" void sum_of_squares(int n, const float* x, float* result) {
    float acc = 0.0f;
#pragma omp parallel for
    for (int i = 0; i < n; ++i) acc += x[i] * x[i] * 1.0001f;
    result[0] = acc;
}
