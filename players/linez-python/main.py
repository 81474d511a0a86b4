"""Linez player: a random legal move each turn (seed: PLAYER_SEED, default 1). Stdlib only."""
import os, random, sys

rng = random.Random(int(os.environ.get("PLAYER_SEED", "1")))


def reachable(board, r, c):
    """Empty cells joined to (r, c) by a path of horizontally/vertically adjacent empty cells."""
    seen, todo = set(), [(r, c)]
    while todo:
        y, x = todo.pop()
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= ny < 9 and 0 <= nx < 9 and board[ny][nx] == "." and (ny, nx) not in seen:
                seen.add((ny, nx))
                todo.append((ny, nx))
    return seen


while True:
    board = [sys.stdin.readline().strip() for _ in range(9)]
    next_three = sys.stdin.readline().strip()
    if not next_three:  # the judge closed our input: the game is over
        break
    moves = [((r, c), to) for r in range(9) for c in range(9) if board[r][c] != "."
             for to in reachable(board, r, c)]
    (r, c), (tr, tc) = rng.choice(moves)
    print(f"{'ABCDEFGHI'[r]}{c + 1}{'ABCDEFGHI'[tr]}{tc + 1}", flush=True)
