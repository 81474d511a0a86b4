#!/usr/bin/env python3
"""Converts the TopCoder system tests of GameEnding into <name>.in / <name>.ans pairs.

Usage: python3 convert.py /work/shared/testdata/topcoder/game-ending-system-tests.txt
Writes into the folder of this script. Cases 0-5 are the statement's examples (example-0..5),
the others are sys-NNN with the TopCoder case number (sys-006..sys-064).
"""
import os
import sys


def main(source):
    out = os.path.dirname(os.path.abspath(__file__))
    count = 0
    with open(source) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            number, n, moves, expected = (part.strip() for part in line.split("|"))
            number = int(number)
            moves = [] if moves == "-" else moves.split()
            name = f"example-{number}" if number < 6 else f"sys-{number:03d}"
            with open(os.path.join(out, name + ".in"), "w") as f_in:
                f_in.write(f"{int(n)}\n{len(moves)}\n" + "".join(m + "\n" for m in moves))
            with open(os.path.join(out, name + ".ans"), "w") as f_ans:
                f_ans.write(expected + "\n")
            count += 1
    print(f"wrote {count} cases to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
