"""ChessPuzzle player: random legal clicks (seed: PLAYER_SEED, default 1). Stdlib only."""
import os, random, sys

LINES = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
KNIGHT = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
SLIDES = {"B": LINES[4:], "R": LINES[:4], "Q": LINES}


def allowed(left, r, c, tile):
    """The cells that may be clicked after `tile` was removed from (r, c)."""
    inside = lambda y, x: 0 <= y < len(left) and 0 <= x < len(left[0])
    if tile in "1234":
        cells = [(r + dr * int(tile), c + dc * int(tile)) for dr, dc in LINES]
    elif tile == "K":
        cells = [(r + dr, c + dc) for dr, dc in KNIGHT]
    else:  # B, R, Q land only on the edge cell of each direction
        cells = []
        for dr, dc in SLIDES[tile]:
            y, x = r, c
            while inside(y + dr, x + dc):
                y, x = y + dr, x + dc
            cells.append((y, x))
    return [(y, x) for y, x in cells if inside(y, x) and (y, x) != (r, c) and left[y][x] > 0]


rng = random.Random(int(os.environ.get("PLAYER_SEED", "1")))
h, w, k = map(int, sys.stdin.readline().split())
top = [list(sys.stdin.readline().strip()) for _ in range(h)]  # the visible tiles
left = [[k] * w for _ in range(h)]  # tiles left on each cell
r, c = rng.randrange(h), rng.randrange(w)
while True:
    print(r, c, flush=True)
    revealed = sys.stdin.readline()
    if not revealed:  # the judge closed our input: the game is over
        break
    tile, top[r][c] = top[r][c], revealed.strip()
    left[r][c] -= 1
    r, c = rng.choice(allowed(left, r, c, tile))
