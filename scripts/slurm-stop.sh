#!/bin/sh
# Stops the one-node Slurm cluster of scripts/slurm-start.sh (same DIR argument).
set -u
dir=${1:-${REDUCE_SLURM_DIR:-/tmp/reduce-slurm}}
[ -d "$dir" ] || exit 0
for daemon in slurmd slurmctld; do
  pidfile="$dir/$daemon.pid"
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null
    rm -f "$pidfile"
  fi
done
[ -S "$dir/munge.sock" ] && munged -s --socket="$dir/munge.sock" 2>/dev/null
[ -f "$dir/munged.pid" ] && kill "$(cat "$dir/munged.pid")" 2>/dev/null
rm -f "$dir/munged.pid"
exit 0
