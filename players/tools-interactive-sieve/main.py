"""Treasure Radar (testcases/tools-interactive), the better version: scan the cells row by row
but skip every cell a previous answer has ruled out (an answer d at (r, c) means no treasure
is closer than d to (r, c))."""
import sys


def main():
    n, m = map(int, sys.stdin.readline().split())
    ruled_out = [[False] * n for _ in range(n)]
    found = []
    for r in range(n):
        for c in range(n):
            if len(found) == m:
                break
            if ruled_out[r][c]:
                continue
            print(f"? {r} {c}", flush=True)
            d = int(sys.stdin.readline())
            if d == 0:
                found.append((r, c))
                continue
            for rr in range(max(0, r - d + 1), min(n, r + d)):
                reach = d - 1 - abs(rr - r)
                for cc in range(max(0, c - reach), min(n, c + reach + 1)):
                    ruled_out[rr][cc] = True
    print("! " + " ".join(f"{r} {c}" for r, c in found), flush=True)


main()
