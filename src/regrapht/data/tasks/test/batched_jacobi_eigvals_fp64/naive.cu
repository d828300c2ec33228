// One thread per matrix: the serial cyclic Jacobi sweeps, on a symmetric copy in local memory, and
// an insertion sort of the diagonal.
#define MAXN 32

__global__ void jacobi_per_thread(int batch, int n, const double* A, double* w) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= batch) return;
    double a[MAXN * MAXN];
    const double* src = A + (long long)k * n * n;
    double frob2 = 0.0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            a[i * n + j] = a[j * n + i] = src[i * n + j];
            frob2 += (i == j ? 1.0 : 2.0) * src[i * n + j] * src[i * n + j];
        }
    }
    for (int sweep = 0; sweep < 30; ++sweep) {
        double off2 = 0.0;
        for (int p = 0; p < n; ++p) {
            for (int q = p + 1; q < n; ++q) off2 += 2.0 * a[p * n + q] * a[p * n + q];
        }
        if (off2 <= 1e-28 * frob2) break;
        for (int p = 0; p < n; ++p) {
            for (int q = p + 1; q < n; ++q) {
                double apq = a[p * n + q];
                if (apq == 0.0) continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int r = 0; r < n; ++r) {
                    double arp = a[r * n + p], arq = a[r * n + q];
                    a[r * n + p] = c * arp - s * arq;
                    a[r * n + q] = s * arp + c * arq;
                }
                for (int r = 0; r < n; ++r) {
                    double apr = a[p * n + r], aqr = a[q * n + r];
                    a[p * n + r] = c * apr - s * aqr;
                    a[q * n + r] = s * apr + c * aqr;
                }
                a[p * n + q] = a[q * n + p] = 0.0;
            }
        }
    }
    double* out = w + (long long)k * n;
    for (int i = 0; i < n; ++i) {
        double d = a[i * n + i];
        int j = i - 1;
        while (j >= 0 && out[j] > d) {
            out[j + 1] = out[j];
            --j;
        }
        out[j + 1] = d;
    }
}

void batched_jacobi_eigvals_fp64(int batch, int n, const double* A, double* w) {
    if (batch <= 0 || n <= 0) return;
    jacobi_per_thread<<<(batch + 63) / 64, 64>>>(batch, n, A, w);
}
