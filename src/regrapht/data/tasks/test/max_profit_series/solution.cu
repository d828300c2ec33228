// steps: loop_unrolling, read_only_cache
// One thread per series keeps naive's perfectly coalesced 128-byte-per-warp rows, but the day loop
// is unrolled by 8 with all eight read-only (ld.global.nc) loads issued before the branch-free
// updates, so every thread keeps 8 rows in flight (64 KiB per SM): enough bytes in flight to hold
// HBM at its streaming peak, also in the partly filled last wave where naive's 4 loads fall short.

constexpr int kThreads = 256;
constexpr int kUnroll = 8;  // days whose loads are in flight together

struct Track {
    int best, buy, sell, low, low_day;
};

__device__ __forceinline__ void track_step(Track& k, int p, int t) {
    const int gain = p - k.low;
    if (gain > k.best) {  // strictly larger: the earliest sell day wins
        k.best = gain;
        k.buy = k.low_day;
        k.sell = t;
    }
    if (p < k.low) {  // strictly lower: the first day of the lowest price
        k.low = p;
        k.low_day = t;
    }
}

__global__ void __launch_bounds__(kThreads) max_profit_kernel(int series, int days, const int* __restrict__ prices,
                                                              int* __restrict__ profit, int* __restrict__ buy_day,
                                                              int* __restrict__ sell_day) {
    const int s = blockIdx.x * kThreads + threadIdx.x;
    if (s >= series) return;
    const size_t stride = static_cast<size_t>(series);
    const int* p = prices + s;
    Track k = {0, -1, -1, days > 0 ? __ldg(p) : 0, 0};
    p += stride;
    int t = 1;
    for (; t + kUnroll <= days; t += kUnroll) {
        int v[kUnroll];
#pragma unroll
        for (int j = 0; j < kUnroll; ++j) v[j] = __ldg(p + j * stride);
        p += kUnroll * stride;
#pragma unroll
        for (int j = 0; j < kUnroll; ++j) track_step(k, v[j], t + j);
    }
    for (; t < days; ++t, p += stride) track_step(k, __ldg(p), t);
    profit[s] = k.best;
    buy_day[s] = k.buy;
    sell_day[s] = k.sell;
}

void max_profit_series(int series, int days, const int* prices, int* profit, int* buy_day, int* sell_day) {
    if (series <= 0) return;
    max_profit_kernel<<<(series + kThreads - 1) / kThreads, kThreads>>>(series, days, prices, profit, buy_day,
                                                                       sell_day);
}
