// steps: parallelize, vectorized_access
// Each thread still owns one pair, but reads its two 128-byte fingerprints with 16-byte vector loads
// (8 per fingerprint instead of 16 eight-byte loads), all issued before any popcount so the loads
// are in flight together.
__global__ void hamming_vec(int pairs, const ulonglong2* a,
                                                   const ulonglong2* b, int* distance) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const ulonglong2* x = a + static_cast<long long>(p) * 8;
    const ulonglong2* y = b + static_cast<long long>(p) * 8;
    ulonglong2 vx[8], vy[8];
    for (int k = 0; k < 8; ++k) {
        vx[k] = x[k];
        vy[k] = y[k];
    }
    int d = 0;
    for (int k = 0; k < 8; ++k) d += __popcll(vx[k].x ^ vy[k].x) + __popcll(vx[k].y ^ vy[k].y);
    distance[p] = d;
}

void hamming_pairs(int pairs, const unsigned long long* a, const unsigned long long* b, int* distance) {
    if (pairs <= 0) return;
    hamming_vec<<<(pairs + 255) / 256, 256>>>(pairs, reinterpret_cast<const ulonglong2*>(a),
                                              reinterpret_cast<const ulonglong2*>(b), distance);
}
