"""Coin Route (testcases/tools-batch), the better version: grow the route by cheapest
insertion, each time adding the coin with the best worth per extra length among those that
keep the route within the budget."""
import math
import sys

DEPOT = (500, 500)


def main():
    data = sys.stdin.read().split()
    n, budget = int(data[0]), int(data[1])
    coins = [tuple(int(t) for t in data[2 + 3 * i:5 + 3 * i]) for i in range(n)]
    points = [c[:2] for c in coins]
    route, length, used = [], 0.0, [False] * n
    while True:
        best = None
        stops = [DEPOT] + [points[i] for i in route] + [DEPOT]
        for i in range(n):
            if used[i]:
                continue
            for pos in range(len(stops) - 1):
                a, b = stops[pos], stops[pos + 1]
                extra = math.dist(a, points[i]) + math.dist(points[i], b) - math.dist(a, b)
                if length + extra > budget - 1e-6:
                    continue
                gain = coins[i][2] / (extra + 1.0)
                if best is None or gain > best[0]:
                    best = (gain, i, pos, extra)
        if best is None:
            break
        _, i, pos, extra = best
        route.insert(pos, i)
        used[i] = True
        length += extra
    print(len(route))
    print(" ".join(map(str, route)))


main()
