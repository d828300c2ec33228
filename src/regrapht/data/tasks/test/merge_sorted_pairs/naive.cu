// A direct parallel port: one thread per input pair computes its output slot by binary search in
// the other run (a's pairs count the b keys strictly smaller, b's pairs count the a keys not larger).
__global__ void place_a(int na, int nb, const int* a_keys, const float* a_vals, const int* b_keys, int* out_keys,
                        float* out_vals) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= na) return;
    const int key = a_keys[i];
    int lo = 0, hi = nb;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (b_keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    out_keys[i + lo] = key;
    out_vals[i + lo] = a_vals[i];
}

__global__ void place_b(int na, int nb, const int* b_keys, const float* b_vals, const int* a_keys, int* out_keys,
                        float* out_vals) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nb) return;
    const int key = b_keys[j];
    int lo = 0, hi = na;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (a_keys[mid] <= key) lo = mid + 1;
        else hi = mid;
    }
    out_keys[j + lo] = key;
    out_vals[j + lo] = b_vals[j];
}

void merge_sorted_pairs(int na, int nb, const int* a_keys, const float* a_vals, const int* b_keys, const float* b_vals,
                        int* out_keys, float* out_vals) {
    if (na > 0) place_a<<<(na + 255) / 256, 256>>>(na, nb, a_keys, a_vals, b_keys, out_keys, out_vals);
    if (nb > 0) place_b<<<(nb + 255) / 256, 256>>>(na, nb, b_keys, b_vals, a_keys, out_keys, out_vals);
}
