"""Coin Route (testcases/tools-batch), the simple version: from wherever the courier stands,
walk to the nearest coin that still leaves enough budget to get back to the depot; stop when
no coin does."""
import math
import sys

DEPOT = (500, 500)


def main():
    data = sys.stdin.read().split()
    n, budget = int(data[0]), int(data[1])
    coins = [tuple(int(t) for t in data[2 + 3 * i:5 + 3 * i]) for i in range(n)]
    at, used, left, order = DEPOT, [False] * n, float(budget), []
    while True:
        best = None
        for i, (x, y, _) in enumerate(coins):
            if used[i]:
                continue
            step = math.dist(at, (x, y))
            if step + math.dist((x, y), DEPOT) <= left - 1e-6 and (best is None or step < best[0]):
                best = (step, i)
        if best is None:
            break
        step, i = best
        used[i] = True
        left -= step
        at = coins[i][:2]
        order.append(i)
    print(len(order))
    print(" ".join(map(str, order)))


main()
