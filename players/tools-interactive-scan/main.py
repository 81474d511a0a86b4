"""Treasure Radar (testcases/tools-interactive), the simple version: query the cells row by
row until M of them answered 0, then name those cells."""
import sys


def main():
    n, m = map(int, sys.stdin.readline().split())
    found = []
    for r in range(n):
        for c in range(n):
            if len(found) == m:
                break
            print(f"? {r} {c}", flush=True)
            if int(sys.stdin.readline()) == 0:
                found.append((r, c))
    print("! " + " ".join(f"{r} {c}" for r, c in found), flush=True)


main()
