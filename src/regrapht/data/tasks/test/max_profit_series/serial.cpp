#include <vector>

void max_profit_series(int series, int days, const int* prices, int* profit, int* buy_day, int* sell_day) {
    std::vector<int> low(series), low_day(series, 0);
    for (int s = 0; s < series; ++s) {
        profit[s] = 0;
        buy_day[s] = -1;
        sell_day[s] = -1;
        if (days > 0) low[s] = prices[s];
    }
    for (int t = 1; t < days; ++t) {
        const int* today = prices + static_cast<long long>(t) * series;
        for (int s = 0; s < series; ++s) {
            const int gain = today[s] - low[s];
            if (gain > profit[s]) {
                profit[s] = gain;
                buy_day[s] = low_day[s];
                sell_day[s] = t;
            }
            if (today[s] < low[s]) {
                low[s] = today[s];
                low_day[s] = t;
            }
        }
    }
}
