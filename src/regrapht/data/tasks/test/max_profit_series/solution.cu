// steps: parallelize, vectorized_access
// Each thread follows four neighbouring series and reads their prices for a day as one 16-byte int4
// (rows are 16-byte aligned when series % 4 == 0), so a warp moves 512 bytes per load instruction;
// other series counts fall back to the scalar kernel.
struct Track {
    int best, buy, sell, low, low_day;
};

__device__ __forceinline__ void track_step(Track& k, int p, int t) {
    if (p - k.low > k.best) {
        k.best = p - k.low;
        k.buy = k.low_day;
        k.sell = t;
    }
    if (p < k.low) {
        k.low = p;
        k.low_day = t;
    }
}

__global__ void max_profit_vec4(int series, int days, const int4* prices, int4* profit, int4* buy_day,
                                int4* sell_day) {
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    const int quads = series / 4;
    if (q >= quads) return;
    int4 p0 = days > 0 ? prices[q] : make_int4(0, 0, 0, 0);
    Track k[4] = {{0, -1, -1, p0.x, 0}, {0, -1, -1, p0.y, 0}, {0, -1, -1, p0.z, 0}, {0, -1, -1, p0.w, 0}};
    for (int t = 1; t < days; ++t) {
        int4 p = prices[static_cast<long long>(t) * quads + q];
        track_step(k[0], p.x, t);
        track_step(k[1], p.y, t);
        track_step(k[2], p.z, t);
        track_step(k[3], p.w, t);
    }
    profit[q] = make_int4(k[0].best, k[1].best, k[2].best, k[3].best);
    buy_day[q] = make_int4(k[0].buy, k[1].buy, k[2].buy, k[3].buy);
    sell_day[q] = make_int4(k[0].sell, k[1].sell, k[2].sell, k[3].sell);
}

__global__ void max_profit_scalar(int series, int days, const int* prices, int* profit, int* buy_day,
                                  int* sell_day) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= series) return;
    Track k = {0, -1, -1, days > 0 ? prices[s] : 0, 0};
    for (int t = 1; t < days; ++t) track_step(k, prices[static_cast<long long>(t) * series + s], t);
    profit[s] = k.best;
    buy_day[s] = k.buy;
    sell_day[s] = k.sell;
}

void max_profit_series(int series, int days, const int* prices, int* profit, int* buy_day, int* sell_day) {
    if (series <= 0) return;
    if (series % 4 == 0) {
        int quads = series / 4;
        max_profit_vec4<<<(quads + 127) / 128, 128>>>(series, days, reinterpret_cast<const int4*>(prices),
                                                      reinterpret_cast<int4*>(profit), reinterpret_cast<int4*>(buy_day),
                                                      reinterpret_cast<int4*>(sell_day));
    } else {
        max_profit_scalar<<<(series + 255) / 256, 256>>>(series, days, prices, profit, buy_day, sell_day);
    }
}
