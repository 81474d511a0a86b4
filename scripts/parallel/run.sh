#!/bin/bash
# Runs a harness suite as SHARDS shards over ssh with GNU parallel, then merges it here:
#   HOSTS=alpha,beta scripts/parallel/run.sh SHARDS --seeds 1..2000 [run options]
# From the workspace, with the players built once into a bundle:
#   harness build --out bundle/players --players players/*  &&  cp target/release/harness bundle/
# Shared file system (the default): every host sees the workspace, BUNDLE and RESULTS at the
# same paths; each runs its shards there. COPY=1: no shared file system; the bundle,
# scoring.toml and testcases/ are copied to REMOTE_DIR on each host with rsync, shards run
# there, and their folders are copied back into RESULTS before the merge.
# Environment: HOSTS (GNU parallel --sshlogin list; `2/alpha` runs two shards at once on
# alpha), SSH (the ssh command, default ssh), BUNDLE (default $PWD/bundle), RESULTS (default
# $PWD/results), RUN_ID (default the UTC time), REMOTE_DIR (COPY=1; default
# /tmp/harness-$RUN_ID). Shards that fail are named by the merge (exit 2).
set -euo pipefail
shards=${1:?usage: HOSTS=a,b run.sh SHARDS run-options...}
shift
: "${HOSTS:?set HOSTS, e.g. HOSTS=alpha,beta (GNU parallel --sshlogin)}"
ssh=${SSH:-ssh}
run_id=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}
bundle=${BUNDLE:-$PWD/bundle}
results=${RESULTS:-$PWD/results}
quoted=$(printf ' %q' "$@")
q() { printf '%q' "$1"; }
if [ "${COPY:-0}" = 1 ]; then
    remote=${REMOTE_DIR:-/tmp/harness-$run_id}
    IFS=, read -r -a hosts <<< "$HOSTS"
    for login in "${hosts[@]}"; do
        host=${login#*/}
        $ssh "$host" mkdir -p "$(q "$remote")"
        rsync -a -e "$ssh" "$bundle/" "$host:$remote/bundle/"
        rsync -a -e "$ssh" scoring.toml "$host:$remote/"
        [ -d testcases ] && rsync -a -e "$ssh" testcases "$host:$remote/"
    done
    cmd="cd $(q "$remote") && bundle/harness --shard {}/$shards --run-id $run_id"
    cmd+=" --results results --no-build --players bundle/players/*$quoted"
else
    cmd="cd $(q "$PWD") && $(q "$bundle/harness") --shard {}/$shards --run-id $run_id"
    cmd+=" --results $(q "$results") --no-build --players $(q "$bundle")/players/*$quoted"
fi
# One shard at a time per host (a shard uses every CPU of its host); a failed shard does not
# stop the others.
seq 1 "$shards" | parallel --sshlogin "$HOSTS" --ssh "$ssh" --jobs 1 --tag "$cmd" ||
    echo "some shards failed; the merge names them" >&2
if [ "${COPY:-0}" = 1 ]; then
    mkdir -p "$results/$run_id/shards"
    for login in "${hosts[@]}"; do
        host=${login#*/}
        rsync -a -e "$ssh" "$host:$remote/results/$run_id/shards/" "$results/$run_id/shards/" ||
            echo "no shard folder on $host" >&2
    done
fi
exec "$bundle/harness" merge --results "$results" "$results/$run_id"/shards/*
