#!/bin/bash
# Runs a harness suite as a Slurm array of SHARDS tasks, then merges it; from the workspace
# (scoring.toml and testcases/ are read there by every task):
#   scripts/slurm/submit.sh SHARDS --seeds 1..2000 [run options]
# The players are those of the bundle, built once where cargo and compilers are:
#   harness build --out bundle/players --players players/*  &&  cp target/release/harness bundle/
# Every node must see the workspace, the bundle and RESULTS at the same paths (a shared file
# system). Environment: BUNDLE (default $PWD/bundle), RESULTS (default $PWD/results), RUN_ID
# (default the UTC time, so runs sort by time), CONFIG (a scoring.toml, default the one found
# from the working folder), SBATCH_ARGS (extra sbatch options for both jobs, such as
# --partition=... or --cpus-per-task=4), WAIT=1 to wait for the merge and exit with its code.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=${1:?usage: submit.sh SHARDS run-options...}
shift
export RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}
export RESULTS=${RESULTS:-$PWD/results}
export BUNDLE=${BUNDLE:-$PWD/bundle}
export HARNESS=${HARNESS:-$BUNDLE/harness}
export CONFIG=${CONFIG:-}
players=("$BUNDLE"/players/*)
[ -e "${players[0]}" ] || { echo "no players in $BUNDLE/players (harness build --out $BUNDLE/players ...)" >&2; exit 2; }
read -r -a extra <<< "${SBATCH_ARGS:-}"
array=$(sbatch --parsable --export=ALL "${extra[@]}" --array="1-$shards" \
    "$here/shard.sbatch" --players "${players[@]}" "$@")
array=${array%%;*}
wait=()
[ "${WAIT:-0}" = 1 ] && wait=(--wait)
echo "run $RUN_ID: shards in job $array; merged into $RESULTS/$RUN_ID" >&2
exec sbatch --parsable --export=ALL "${extra[@]}" "${wait[@]}" \
    --dependency="afterany:$array" "$here/merge.sbatch"
