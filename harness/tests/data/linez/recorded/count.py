#!/usr/bin/env python3
"""Counts the score of recorded Linez games from the rules alone, without the harness.

For each `NAME.transcript` given (a harness transcript: `> ` lines the judge sent, `< ` lines
the player answered), it replays the player's moves on the boards it was shown, checking every
step against the rules of the README and the statement:

- a move takes a number to an empty cell joined to it by a path of horizontally/vertically
  adjacent empty cells;
- every line (row, column, diagonal) of 5 or more equal numbers through the moved number is
  removed, scoring 10 + k(k-5)/2 for k removed cells, and the player moves again with the
  same nextThree (if that emptied the board, nextThree lands at once);
- otherwise the three nextThree numbers land, in order, on empty cells; a line a landed number
  completes is removed and scored the same way; then a new nextThree is drawn.

Where the numbers landed is the judge's random choice, not a rule: the script finds every
placement of them that turns its own board into the next board shown, and requires all of
them to score the same. The game must end exactly when the board is full after the last
move's landings. It writes `NAME.expected`: per move its own points, the landings' points and
the running total, then the final score. Any step the rules cannot explain stops the script.

    python3 count.py *.transcript
"""

import sys
from collections import deque

SIZE = 9
DIRECTIONS = [(0, 1), (1, 0), (1, 1), (1, -1)]


def read_transcript(path):
    """The views (board rows, nextThree) sent and the moves answered, in order."""
    views, moves, block = [], [], []
    for line in open(path).read().splitlines():
        if line.startswith("> "):
            block.append(line[2:])
        elif line.startswith("< "):
            moves.append(line[2:])
        else:
            raise SystemExit(f"{path}: unexpected line {line!r}")
        if len(block) == 10:
            views.append(([list(r) for r in block[:9]], block[9]))
            block = []
    if block:
        raise SystemExit(f"{path}: a view cut short")
    return views, moves


def cell_of(text):
    row, col = "ABCDEFGHI".index(text[0]), int(text[1]) - 1
    assert 0 <= col < SIZE, text
    return row, col


def reachable(board, start, goal):
    seen, todo = {start}, deque([start])
    while todo:
        r, c = todo.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < SIZE and 0 <= nc < SIZE and (nr, nc) not in seen and board[nr][nc] == ".":
                if (nr, nc) == goal:
                    return True
                seen.add((nr, nc))
                todo.append((nr, nc))
    return False


def remove_lines(board, r, c):
    """Removes every line of 5+ equal numbers through (r, c); returns the cells removed."""
    n = board[r][c]
    gone = set()
    for dr, dc in DIRECTIONS:
        run = [(r, c)]
        for sign in (1, -1):
            y, x = r + dr * sign, c + dc * sign
            while 0 <= y < SIZE and 0 <= x < SIZE and board[y][x] == n:
                run.append((y, x))
                y, x = y + dr * sign, x + dc * sign
        if len(run) >= 5:
            gone.update(run)
    for y, x in gone:
        board[y][x] = "."
    return len(gone)


def points(k):
    return 10 + k * (k - 5) // 2 if k else 0


def empties(board):
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == "."]


def possible(shown, numbers, i, removed):
    """Whether the cell where numbers[i] landed (and removed a line of `removed` cells with
    it, if any) can show `shown` on the next board. Later landings change it only if one
    lands there after it was emptied (there must be a later landing), or one completes a line
    through it (a later number equal to it)."""
    later = numbers[i + 1:]
    if removed:
        return shown == "." or bool(later)
    return shown == numbers[i] or numbers[i] in later


def landings(board, numbers, target):
    """Every way the numbers can land, in order, that leaves `target` (None: the board must
    end full, the game over): the points each scores."""
    found = []

    def place(b, i, score):
        free = empties(b)
        if i == len(numbers) or not free:
            if (target is None and not free) or b == target:
                found.append(score)
            return
        for r, c in free:
            nb = [row[:] for row in b]
            nb[r][c] = numbers[i]
            k = remove_lines(nb, r, c)
            if target is not None and not possible(target[r][c], numbers, i, k):
                continue
            place(nb, i + 1, score + points(k))

    place([row[:] for row in board], 0, 0)
    return found


def count(path):
    views, moves = read_transcript(path)
    if len(moves) != len(views):
        raise SystemExit(f"{path}: {len(views)} views but {len(moves)} moves")
    rows, total = [], 0
    board, next_three = views[0]
    for i, move in enumerate(moves):
        where = f"{path}: move {i + 1} {move}"
        if board != views[i][0] or next_three != views[i][1]:
            raise SystemExit(f"{where}: the board shown is not the one the rules give")
        assert len(move) == 4, where
        start, goal = cell_of(move[:2]), cell_of(move[2:])
        if board[start[0]][start[1]] == "." or board[goal[0]][goal[1]] != ".":
            raise SystemExit(f"{where}: not a move from a number to an empty cell")
        if not reachable(board, start, goal):
            raise SystemExit(f"{where}: no path of empty cells")
        board = [row[:] for row in board]
        board[goal[0]][goal[1]] = board[start[0]][start[1]]
        board[start[0]][start[1]] = "."
        own = points(remove_lines(board, *goal))
        landed = 0
        last = i + 1 == len(moves)
        if own and any(x != "." for row in board for x in row):
            if last:
                raise SystemExit(f"{where}: the game ended although the player could move again")
        else:
            target = None if last else views[i + 1][0]
            scores = set(landings(board, list(next_three), target))
            if len(scores) != 1:
                raise SystemExit(f"{where}: landings explain the next board {len(scores)} ways: {scores}")
            landed = scores.pop()
            if not last:
                board, next_three = views[i + 1]
        total += own + landed
        rows.append(f"{i + 1} {move} {own} {landed} {total}")
    out = path.removesuffix(".transcript") + ".expected"
    with open(out, "w") as f:
        f.write(f"# written by count.py from {path.split('/')[-1]}: move number, move, its own points,\n")
        f.write("# the points of the numbers that landed after it, running total; then the final score\n")
        f.write("\n".join(rows) + f"\nscore: {total}\n")
    print(f"{out}: {len(moves)} moves, score {total}")


for name in sys.argv[1:]:
    count(name)
