#!/usr/bin/env python3
"""Checks and scores recorded ChessPuzzle games from the rules alone, without the harness.

For each `NAME.transcript` given (a harness transcript: `> ` lines the judge sent, `< ` the
player's clicks), it follows the game on its own copy of what the player could know: the
visible top of every cell (from the first view and the tile revealed after each click) and
how many tiles each cell has left (K minus its clicks). It checks, with the statement's rules:

- every click but the first is allowed by the tile the previous click removed, seen from the
  cell it was on: `1`..`4` the 8 cells at exactly that distance along a row, column or
  diagonal; `K` the knight jumps; `B`, `R`, `Q` only the last cell on the board in each of the
  piece's directions; never the same cell, an empty cell or a cell off the board;
- the judge reveals `-` exactly when a cell has no tile left;
- the game ends (no more views) exactly when no cell is allowed after the last click.

It writes `NAME.expected`: the clicks, the tiles, and the score clicks / (H x W x K).

    python3 count.py *.transcript
"""

import sys
from fractions import Fraction

LINES = [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
KNIGHT = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
SLIDES = {"B": LINES[4:], "R": LINES[:4], "Q": LINES}


def allowed(h, w, left, r, c, tile):
    inside = lambda y, x: 0 <= y < h and 0 <= x < w
    if tile in "1234":
        cells = [(r + dr * int(tile), c + dc * int(tile)) for dr, dc in LINES]
    elif tile == "K":
        cells = [(r + dr, c + dc) for dr, dc in KNIGHT]
    else:
        cells = []
        for dr, dc in SLIDES[tile]:
            y, x = r, c
            while inside(y + dr, x + dc):
                y, x = y + dr, x + dc
            cells.append((y, x))
    return {(y, x) for y, x in cells if inside(y, x) and (y, x) != (r, c) and left[y][x] > 0}


def count(path):
    sent, clicks = [], []
    for line in open(path).read().splitlines():
        if line.startswith("> "):
            sent.append(line[2:])
        elif line.startswith("< "):
            clicks.append(tuple(int(x) for x in line[2:].split()))
            sent.append(None)  # marks where a click came
        else:
            raise SystemExit(f"{path}: unexpected line {line!r}")
    h, w, k = map(int, sent[0].split())
    top = [list(row) for row in sent[1:1 + h]]
    assert all(len(row) == w and set(row) <= set("1234KBRQ") for row in top), path
    left = [[k] * w for _ in range(h)]
    revealed = [x for x in sent[1 + h:] if x is not None]
    if len(revealed) != len(clicks) - 1:
        raise SystemExit(f"{path}: {len(clicks)} clicks but {len(revealed)} tiles revealed")
    last = None
    for i, (r, c) in enumerate(clicks):
        where = f"{path}: click {i + 1} ({r} {c})"
        if last is not None and (r, c) not in allowed(h, w, left, *last):
            raise SystemExit(f"{where}: not allowed after {last}")
        if not (0 <= r < h and 0 <= c < w) or left[r][c] == 0:
            raise SystemExit(f"{where}: off the board or empty")
        tile = top[r][c]
        left[r][c] -= 1
        if i < len(revealed):
            shown = revealed[i]
            if (shown == "-") != (left[r][c] == 0) or (shown != "-" and shown not in "1234KBRQ"):
                raise SystemExit(f"{where}: revealed {shown!r} with {left[r][c]} tiles left")
            top[r][c] = shown
        last = (r, c, tile)
    if allowed(h, w, left, *last):
        raise SystemExit(f"{path}: the game ended while cells were allowed")
    score = Fraction(len(clicks), h * w * k)
    out = path.removesuffix(".transcript") + ".expected"
    with open(out, "w") as f:
        f.write(f"# written by count.py from {path.split('/')[-1]}\n")
        f.write(f"clicks: {len(clicks)}\ntiles: {h * w * k}\nscore: {float(score)!r}\n")
    print(f"{out}: {len(clicks)} clicks of {h * w * k} tiles, score {float(score)!r}")


for name in sys.argv[1:]:
    count(name)
