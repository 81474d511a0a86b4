// Knapsack Pick (testcases/tools-topcoder), the better version: take the items by falling
// worth per weight while they fit.
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n, capacity;
    if (std::scanf("%d %d", &n, &capacity) != 2) return 1;
    std::vector<int> w(n), v(n), order(n);
    for (int i = 0; i < n; i++) {
        if (std::scanf("%d %d", &w[i], &v[i]) != 2) return 1;
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return v[a] * w[b] > v[b] * w[a]; });
    std::vector<int> chosen;
    long load = 0;
    for (int i : order) {
        if (load + w[i] <= capacity) {
            chosen.push_back(i);
            load += w[i];
        }
    }
    std::printf("%zu\n", chosen.size());
    for (int i : chosen) std::printf("%d\n", i);
    std::fflush(stdout);
    return 0;
}
