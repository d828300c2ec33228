extern "C" void sum_of_squares(int n, const float* x, float* result) {
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static)
    for (int i = 0; i < n; ++i) acc += static_cast<double>(x[i]) * x[i];
    result[0] = static_cast<float>(acc);
}
