// One thread per series scans its days (consecutive threads read consecutive series).
__global__ void max_profit_kernel(int series, int days, const int* prices, int* profit, int* buy_day,
                                  int* sell_day) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= series) return;
    int best = 0, buy = -1, sell = -1;
    int low = days > 0 ? prices[s] : 0, low_day = 0;
    for (int t = 1; t < days; ++t) {
        int p = prices[static_cast<long long>(t) * series + s];
        if (p - low > best) {
            best = p - low;
            buy = low_day;
            sell = t;
        }
        if (p < low) {
            low = p;
            low_day = t;
        }
    }
    profit[s] = best;
    buy_day[s] = buy;
    sell_day[s] = sell;
}

void max_profit_series(int series, int days, const int* prices, int* profit, int* buy_day, int* sell_day) {
    if (series <= 0) return;
    max_profit_kernel<<<(series + 255) / 256, 256>>>(series, days, prices, profit, buy_day, sell_day);
}
