#!/usr/bin/env python3
"""Writes the fixed RussianCheckers tests as <name>.in / <name>.ans pairs in this folder.

    example-0 .. example-6   the statement's examples (parsed from the statement text)
    sys-000 .. sys-124       the TopCoder system tests, in the order of the source file

Usage: convert.py [STATEMENT] [SYSTEM_TESTS]  (defaults: the copies under /work/shared).
Input encoding (TopCoder order String[] board, String turn): "8", the 8 rows (row 8 first),
the turn. Answer: the number of moves, then the moves, one per line.
"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
STATEMENT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/problems/russian-checkers.txt")
SYSTEM = pathlib.Path(
    sys.argv[2] if len(sys.argv) > 2 else "/work/shared/testdata/topcoder/russian-checkers-system-tests.txt"
)


def write(name, board, turn, moves):
    assert len(board) == 8 and all(len(row) == 8 for row in board), name
    assert turn in ("WHITE", "BLACK"), name
    assert moves == sorted(moves), f"{name}: moves not sorted"
    (HERE / f"{name}.in").write_text("8\n" + "".join(r + "\n" for r in board) + turn + "\n")
    (HERE / f"{name}.ans").write_text(f"{len(moves)}\n" + "".join(m + "\n" for m in moves))


def examples():
    text = STATEMENT.read_text()
    text = text[text.index("Examples") : text.index("Problem url")]
    chunks = re.split(r"^\d+\)\s*$", text, flags=re.M)[1:]
    out = []
    for chunk in chunks:
        # Only the quoted strings inside the braces and the turn: the note may quote words too.
        board, turn, returns = re.match(r'\s*\{([^}]*)\}\s*"(\w+)"\s*Returns:\s*\{([^}]*)\}', chunk).groups()
        out.append((re.findall(r'"([^"]*)"', board), turn, re.findall(r'"([^"]*)"', returns)))
    return out


def system_tests():
    lines = SYSTEM.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("case "):
            i += 1
            continue
        turn = lines[i + 1].split()[1]
        board = lines[i + 2 : i + 10]
        count = int(lines[i + 10].split()[1])
        moves = lines[i + 11 : i + 11 + count]
        out.append((board, turn, moves))
        i += 11 + count
    return out


def main():
    for old in list(HERE.glob("*.in")) + list(HERE.glob("*.ans")):
        old.unlink()
    exs = examples()
    assert len(exs) == 7, len(exs)
    for k, (board, turn, moves) in enumerate(exs):
        write(f"example-{k}", board, turn, moves)
    syss = system_tests()
    assert len(syss) == 125, len(syss)
    for k, (board, turn, moves) in enumerate(syss):
        write(f"sys-{k:03}", board, turn, moves)
    for k, ex in enumerate(exs):
        same = [f"sys-{j:03}" for j, s in enumerate(syss) if s == ex]
        print(f"example-{k}: {'same as ' + ', '.join(same) if same else 'not among the system tests'}")


main()
