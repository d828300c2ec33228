// Each iteration: one thread per sample computes its component densities and responsibilities and
// adds its share of every sum (N_j, sum r x, sum r x^2, log-likelihood) to global double
// accumulators with atomics; then k threads turn the sums into the next parameters. w, mu and var
// hold the current parameters; work holds the 3k + 1 accumulators.
constexpr int MAX_K = 16;

__global__ void e_step(int n, int k, const float* x, const float* w, const float* mu, const float* var, double* acc) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p[MAX_K];
    float s = 0.0f;
    for (int j = 0; j < k; ++j) {
        const float d = x[i] - mu[j];
        p[j] = w[j] / sqrtf(2.0f * 3.14159265358979f * var[j]) * expf(-d * d / (2.0f * var[j]));
        s += p[j];
    }
    atomicAdd(&acc[3 * k], (double)logf(s));
    for (int j = 0; j < k; ++j) {
        const double r = p[j] / s;
        atomicAdd(&acc[j], r);
        atomicAdd(&acc[k + j], r * x[i]);
        atomicAdd(&acc[2 * k + j], r * x[i] * x[i]);
    }
}

__global__ void m_step(int n, int k, int t, double* acc, float* w, float* mu, float* var, float* loglik) {
    const int j = threadIdx.x;
    if (j >= k) return;
    const double mass = acc[j], mean = acc[k + j] / mass;
    w[j] = (float)(mass / n);
    mu[j] = (float)mean;
    var[j] = (float)fmax(acc[2 * k + j] / mass - mean * mean, 1e-6);
    if (j == 0) loglik[t] = (float)acc[3 * k];
}

void gmm_em_1d(int n, int k, int iters, const float* x, const float* init_w, const float* init_mu, const float* init_var,
               float* w, float* mu, float* var, float* loglik, double* work) {
    if (n <= 0 || k <= 0) return;
    cudaMemcpyAsync(w, init_w, k * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpyAsync(mu, init_mu, k * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpyAsync(var, init_var, k * sizeof(float), cudaMemcpyDeviceToDevice);
    for (int t = 0; t < iters; ++t) {
        cudaMemsetAsync(work, 0, (3 * k + 1) * sizeof(double));
        e_step<<<(n + 255) / 256, 256>>>(n, k, x, w, mu, var, work);
        m_step<<<1, 32>>>(n, k, t, work, w, mu, var, loglik);
    }
}
