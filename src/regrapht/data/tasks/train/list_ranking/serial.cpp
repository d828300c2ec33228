#include <vector>

void list_ranking(int n, const int* next, int* rank, int* tail) {
    std::vector<char> has_pred(n, 0);
    for (int i = 0; i < n; ++i)
        if (next[i] >= 0) has_pred[next[i]] = 1;
    for (int head = 0; head < n; ++head) {
        if (has_pred[head]) continue;
        int length = 0, last = head;
        for (int v = head; v >= 0; v = next[v]) {
            ++length;
            last = v;
        }
        int k = length - 1;
        for (int v = head; v >= 0; v = next[v]) {
            rank[v] = k--;
            tail[v] = last;
        }
    }
}
