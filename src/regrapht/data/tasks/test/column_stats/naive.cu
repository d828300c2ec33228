// A direct parallel port. The rows are cut into chunks of CS_CHUNK; one thread per (chunk, column)
// runs Welford's update in double down its piece of the column (consecutive threads take
// consecutive columns of a row, so the loads coalesce) and stores the piece's count, mean, sum of
// squared deviations, minimum and maximum. Then one thread per column merges its pieces in order
// with Chan's pairwise formula.
#define CS_CHUNK 1024

struct Piece {
    double count, mean, m2;
    float lo, hi;
};

__global__ void column_pieces(int rows, int cols, int chunks, const float* data, Piece* pieces) {
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long long)chunks * cols) return;
    int c = (int)(t % cols), chunk = (int)(t / cols);
    int r0 = chunk * CS_CHUNK, r1 = min(rows, r0 + CS_CHUNK);
    double mu = 0.0, m2 = 0.0;
    float lo = data[(long long)r0 * cols + c], hi = lo;
    for (int r = r0; r < r1; ++r) {
        float v = data[(long long)r * cols + c];
        double x = v;
        double delta = x - mu;
        mu += delta / (r - r0 + 1);
        m2 += delta * (x - mu);
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    pieces[t] = Piece{(double)(r1 - r0), mu, m2, lo, hi};
}

__global__ void column_merge(int rows, int cols, int chunks, const Piece* pieces, float* mean, float* stddev,
                             float* col_min, float* col_max) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double count = 0.0, mu = 0.0, m2 = 0.0;
    float lo = 0.0f, hi = 0.0f;
    for (int k = 0; k < chunks; ++k) {
        Piece p = pieces[(long long)k * cols + c];
        double total = count + p.count;
        double delta = p.mean - mu;
        mu += delta * (p.count / total);
        m2 += p.m2 + delta * delta * (count * p.count / total);
        lo = k == 0 ? p.lo : fminf(lo, p.lo);
        hi = k == 0 ? p.hi : fmaxf(hi, p.hi);
        count = total;
    }
    mean[c] = (float)mu;
    stddev[c] = rows > 1 ? (float)sqrt(m2 / (rows - 1)) : 0.0f;
    col_min[c] = lo;
    col_max[c] = hi;
}

void column_stats(int rows, int cols, const float* data, float* mean, float* stddev, float* col_min, float* col_max) {
    if (cols <= 0) return;
    int chunks = (rows + CS_CHUNK - 1) / CS_CHUNK;
    static Piece* pieces = nullptr;
    static long long capacity = 0;
    long long need = (long long)chunks * cols;
    if (need > capacity) {
        if (pieces) cudaFree(pieces);
        cudaMalloc(&pieces, need * sizeof(Piece));
        capacity = need;
    }
    if (need > 0) column_pieces<<<(int)((need + 255) / 256), 256>>>(rows, cols, chunks, data, pieces);
    column_merge<<<(cols + 255) / 256, 256>>>(rows, cols, chunks, pieces, mean, stddev, col_min, col_max);
}
