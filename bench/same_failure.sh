#!/usr/bin/env bash
# Issue 40's benchmark: no script vs a strict hand-written one, on compiler crashes.
#
#   bench/same_failure.sh [-c CAP_SECONDS] [CASE_DIR]...
#
# For each case (a bench case with a `same-failure.cmd`: the compile command, `@@` for the
# file; default: every such case in bench/cases), one run each, one at a time, each stopped at
# CAP seconds (SIGINT: reduce keeps its best so far and writes its record):
#
#   A  reduce --same-failure --reduce-args --save-slipped DIR -- $(cat same-failure.cmd)
#   B  reduce --test CASE/test.sh                        (the strict test, no flags)
#
# and prints, for each: tokens before and after (bench/ctokens.py), test runs, wall, whether A's
# result passes the strict test (a slip would not), the slips A caught (candidates that failed
# another way: `slips` in its record), the signatures --save-slipped found, and the command A
# ends with. When A was stopped at the cap, --reduce-args did not run: if A's result is small
# (at most 20,000 bytes), a third run C (capped too) goes on from it with the same command and
# reduces the arguments if it finishes.
# The table goes to stdout and to bench/same_failure.md (bench/table.py appends that file to
# RESULTS.md). Default CAP: 300 s. Needs python3 and GNU timeout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cap=300
small=20000
while getopts "c:" opt; do
  case $opt in c) cap=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  for d in "$here"/cases/*/; do [ -f "$d/same-failure.cmd" ] && set -- "$@" "${d%/}"; done
fi

(cd "$root" && cargo build --release --quiet) || { echo "build failed" >&2; exit 1; }
reduce_bin="${CARGO_TARGET_DIR:-$root/target}/release/reduce"
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-same-failure.XXXXXX")
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT

json() { # FILE EXPR: a field of a --stats-json record ('-' when missing)
  python3 - "$1" "$2" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    v = eval(sys.argv[2], {"r": r})
    print("-" if v is None else v)
except Exception:
    print("-")
PY
}

# run NAME DIR INPUT ARGS...: reduce in DIR (its own TMPDIR and cache), capped; prints the wall
run() {
  local name=$1 dir=$2 input=$3 start end
  shift 3
  mkdir -p "$dir/tmp" "$dir/cache"
  start=$(date +%s.%N)
  (
    cd "$dir" || exit 1
    # clang writes nothing to /tmp with -fno-crash-diagnostics, but a command reduced without
    # it would: keep it in the run's directory
    export TMPDIR="$dir/tmp" XDG_CACHE_HOME="$dir/cache"
    timeout -s INT -k 60 "$cap" "$reduce_bin" -q --stats-json "$dir/$name.json" \
      -o "$dir/$name.out" "$input" "$@"
  ) > "$dir/$name.log" 2>&1 < /dev/null
  end=$(date +%s.%N)
  python3 -c "print('%.0f' % ($end - $start))"
}

rows=()
for case in "$@"; do
  case=$(cd "$case" && pwd)
  name=$(basename "$case")
  input=$(cat "$case/input.name" 2>/dev/null || echo input.c)
  if [ ! -f "$case/$input" ]; then
    "$case/prepare.sh" >&2 || { echo "$name: prepare.sh failed" >&2; continue; }
  fi
  read -r -a cmd < "$case/same-failure.cmd"
  w="$work/$name"
  mkdir -p "$w"
  cp "$case/$input" "$w/$input"
  tokens0=$(python3 "$here/ctokens.py" "$w/$input")
  echo "$name: A (--same-failure -- ${cmd[*]})" >&2
  wall_a=$(run a "$w" "$input" --same-failure --reduce-args --save-slipped "$w/slips" -- "${cmd[@]}")
  echo "$name: B (--test test.sh)" >&2
  wall_b=$(run b "$w" "$input" --test "$case/test.sh")
  for x in a b; do
    mkdir -p "$w/check-$x" && cp "$w/$x.out" "$w/check-$x/$input" 2>/dev/null
  done
  passes_a=no
  (cd "$w/check-a" && timeout 120 "$case/test.sh" "$input" > /dev/null 2>&1) && passes_a=yes
  tokens_a=$(python3 "$here/ctokens.py" "$w/check-a/$input" 2>/dev/null || echo -)
  tokens_b=$(python3 "$here/ctokens.py" "$w/check-b/$input" 2>/dev/null || echo -)
  tests_a=$(json "$w/a.json" 'r["tests"]'); tests_b=$(json "$w/b.json" 'r["tests"]')
  done_a=$(json "$w/a.json" 'r["completion"]'); done_b=$(json "$w/b.json" 'r["completion"]')
  slips=$(json "$w/a.json" 'r["slips"]')
  found=$(json "$w/a.json" '", ".join(s["short_name"] for s in r["slipped"]["signatures"]) or "none"')
  command=$(json "$w/a.json" 'r["command"]["shell"]')
  size_a=$(wc -c < "$w/a.out" 2>/dev/null || echo 0)
  if [ "$command" = - ] && [ "$size_a" -gt "$small" ]; then
    command="not reached: A stopped at the cap with $size_a bytes"
  elif [ "$command" = - ]; then
    echo "$name: C (A was stopped: --reduce-args from A's result)" >&2
    cp "$w/a.out" "$w/c-$input"
    run c "$w" "c-$input" --same-failure --reduce-args -- "${cmd[@]}" > /dev/null
    command=$(json "$w/c.json" 'r["command"]["shell"]')
    [ "$command" = - ] && command="not reached (C stopped at the cap too)" \
      || command="$command (run C)"
  fi
  kept=$(json "$w/a.json" 'r["kept"]')
  rows+=("| $name | same-failure | $tokens0 -> $tokens_a | $tests_a | $wall_a | $done_a | $passes_a | $slips | $found |")
  rows+=("| $name | strict test | $tokens0 -> $tokens_b | $tests_b | $wall_b | $done_b | yes | - | - |")
  notes+=("- $name: kept \`$kept\`; smallest failing command: \`$command\`")
  if [ -n "${KEEP_WORK:-}" ]; then echo "$name: work files in $w" >&2; fi
done

{
  echo "## No script needed: --same-failure against a strict test (bench/same_failure.sh)"
  echo
  echo "One run of each, capped at ${cap} s (SIGINT), one at a time on a shared 2-core machine."
  echo "same-failure = \`reduce --same-failure --reduce-args --save-slipped DIR -- CMD\` (CMD: the"
  echo "case's \`same-failure.cmd\`); strict test = \`reduce --test test.sh\`. passes strict = the"
  echo "same-failure result passes the hand-written test (no slip); slips caught = candidates that"
  echo "failed another way; saved = the other signatures --save-slipped wrote."
  echo
  echo "| case | run | tokens | tests | wall s | completion | passes strict | slips caught | saved |"
  echo "| --- | --- | ---: | ---: | ---: | --- | --- | ---: | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  printf '%s\n' "${notes[@]}"
} | tee "$here/same_failure.md"
