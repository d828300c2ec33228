// Sliding-window aggregates over a sorted event log (e.g. traded volume inside each time window).
static int first_not_before(const float* times, int events, float t) {
    int lo = 0, hi = events;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (times[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void window_event_sums(int events, int queries, const float* times, const float* weights, const float* win_start,
                       const float* win_end, int* count, float* weight_sum) {
    for (int q = 0; q < queries; ++q) {
        const int first = first_not_before(times, events, win_start[q]);
        const int last = first_not_before(times, events, win_end[q]);
        double total = 0.0;
        for (int i = first; i < last; ++i) total += weights[i];
        count[q] = last > first ? last - first : 0;
        weight_sum[q] = static_cast<float>(total);
    }
}
