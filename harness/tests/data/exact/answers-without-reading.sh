#!/bin/sh
# A GameEnding player that closes its input without reading a byte of it, prints the answer
# it was written for ("First player wins") and exits: its answer is judged all the same.
exec 0<&-
echo "First player wins"
