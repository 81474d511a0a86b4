"""Knapsack Pick (testcases/tools-topcoder), the simple version: take the items in the order
given while they fit."""
import sys


def main():
    n = int(sys.stdin.readline())
    capacity = int(sys.stdin.readline())
    items = [tuple(map(int, sys.stdin.readline().split())) for _ in range(n)]
    chosen, load = [], 0
    for i, (w, _) in enumerate(items):
        if load + w <= capacity:
            chosen.append(i)
            load += w
    print(len(chosen))
    for i in chosen:
        print(i)
    sys.stdout.flush()


main()
