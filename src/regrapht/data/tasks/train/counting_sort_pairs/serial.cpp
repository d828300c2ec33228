#include <vector>

// Stable counting sort (the bucketing step of a spatial hash or a particle-in-cell code).
void counting_sort_pairs(int n, int key_range, const int* keys, const float* payload, int* sorted_keys,
                         float* sorted_payload, int* bucket_start) {
    std::vector<int> count(key_range, 0);
    for (int i = 0; i < n; ++i) count[keys[i]] += 1;
    int running = 0;
    for (int k = 0; k < key_range; ++k) {
        bucket_start[k] = running;
        running += count[k];
    }
    bucket_start[key_range] = running;
    std::vector<int> next(bucket_start, bucket_start + key_range);
    for (int i = 0; i < n; ++i) {
        const int dst = next[keys[i]]++;
        sorted_keys[dst] = keys[i];
        sorted_payload[dst] = payload[i];
    }
}
