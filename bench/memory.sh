#!/usr/bin/env bash
# Peak resident memory of reduce on large inputs (issue 38: at most 10x the input), one run at a
# time, for one binary or for two side by side:
#
#   bench/memory.sh [-c CAP] [-j JOBS] BIN [BIN2]
#
# (ONLY=REGEX in the environment: the cases whose names match.)
#
# Cases: a 30 MB text log whose test greps two needle lines (/work/mem/log.txt, or one generated
# into $TMPDIR), the 9.6 MB SQLite amalgamation (prepared case sqlite3-scale-needles, capped at
# 300 tests: its peak comes in the first rounds), zlib's inflate.c (prepared case
# zlib-inflate-signconv), bench/cases/py-pydecimal-toplevel-nameerror and the three large C++
# cases of bench/cases (preprocessed, 1.8-2.2 MB; tree-sitter's tree is most of their peak). A case whose input is
# missing is skipped (run its prepare.sh). Every run is cut at CAP seconds (default 120): the
# peak is what is measured, not the result. Peak RSS is the reduce process's own (VmHWM), not
# its tests'.
# Prints one Markdown table: input MB (10^6 bytes), then for each binary (as named on the command line) peak
# RSS in MB, peak / input, wall seconds and test runs (a run cut by CAP reports no tests).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cap=120
jobs=1
while getopts "c:j:" opt; do
  case $opt in c) cap=$OPTARG ;; j) jobs=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-c CAP] [-j JOBS] BIN [BIN2]" >&2; exit 2; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
prepared=${PREPARED:-/work/prepared}

# the 30 MB log: the one of issue 38 if it is here, else one like it
log=/work/mem/log.txt
if [ ! -f "$log" ]; then
  log=$work/log.txt
  python3 - "$log" <<'PY'
import random, sys
r = random.Random(38)
words = ["GET", "POST", "INFO", "ERROR", "200", "500", "user=alice", "user=bob", "[worker-3]",
         "{id: 42}", "(cache hit)", "/api/v1/users", "/static/app.js"]
with open(sys.argv[1], "w") as f:
    n, size = 0, 0
    while size < 30_000_000:
        line = f"2026-12-06T10:{n % 60:02d}:{n % 60:02d}Z " + " ".join(r.choice(words) for _ in range(r.randint(3, 12)))
        if n == 125_000: line += " NEEDLE_ONE"
        if n == 300_000: line += " NEEDLE_TWO"
        f.write(line + "\n"); size += len(line) + 1; n += 1
PY
fi
printf '#!/bin/sh\ngrep -q NEEDLE_ONE "$1" && grep -q NEEDLE_TWO "$1"\n' > "$work/needles.sh"
chmod +x "$work/needles.sh"

# name|input|test|extra reduce arguments
cases=(
  "log-30mb|$log|$work/needles.sh|"
  "sqlite3-scale-needles|$prepared/sqlite3-scale-needles/input.c|$prepared/sqlite3-scale-needles/test.sh|--max-attempts 300"
  "zlib-inflate-signconv|$prepared/zlib-inflate-signconv/input.c|$prepared/zlib-inflate-signconv/test.sh|"
  "py-pydecimal-toplevel-nameerror|$here/cases/py-pydecimal-toplevel-nameerror/input.py|$here/cases/py-pydecimal-toplevel-nameerror/test.sh|"
  "cpp-rocksdb-parsesizet-uselesscast|$here/cases/cpp-rocksdb-parsesizet-uselesscast/input.cc|$here/cases/cpp-rocksdb-parsesizet-uselesscast/test.sh|"
  "cpp-protobuf-floattobuffer-doublepromo|$here/cases/cpp-protobuf-floattobuffer-doublepromo/input.cc|$here/cases/cpp-protobuf-floattobuffer-doublepromo/test.sh|"
  "cpp-cxx-lambda-requires-ice|$here/cases/cpp-cxx-lambda-requires-ice/input.cc|$here/cases/cpp-cxx-lambda-requires-ice/test.sh|"
)

# peak BIN INPUT TEST ARGS -> "peak_kb wall_s tests": the reduce process's own high-water mark
# (VmHWM, read every 0.1 s while it runs: a C++ test's compiler is larger than reduce, so the
# figure of the process tree would be the compiler's)
peak() {
  local bin=$1 input=$2 test=$3 args=$4 w pid hwm=0 now t0 start
  w=$(mktemp -d "$work/run.XXXX")
  cp "$input" "$w/"
  mkdir "$w/tmp"
  t0=$(date +%s.%N) start=$(date +%s)
  # shellcheck disable=SC2086
  (cd "$w" && exec "$bin" -q -j "$jobs" --temp-dir "$w/tmp" --no-persistent-cache \
      --stats-json "$w/stats.json" $args --test "$test" -o "$w/out" "$(basename "$input")") \
      >/dev/null 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    now=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    [ -n "$now" ] && [ "$now" -gt "$hwm" ] && hwm=$now
    if (($(date +%s) - start >= cap)); then
      kill -INT "$pid" 2>/dev/null
      sleep 5
      kill -KILL "$pid" 2>/dev/null
    fi
    sleep 0.1
  done
  wait "$pid" 2>/dev/null
  local wall tests=-
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  [ -f "$w/stats.json" ] && tests=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('tests', '-'))" "$w/stats.json")
  echo "$hwm $wall $tests"
  rm -rf "$w"
}

header="| case | input MB"
rule="| --- | ---:"
for b in "$@"; do
  header+=" | $b: peak MB | ratio | wall s | tests"
  rule+=" | ---: | ---: | ---: | ---:"
done
echo "$header |"
echo "$rule |"
for c in "${cases[@]}"; do
  IFS='|' read -r name input test args <<<"$c"
  [[ $name =~ ${ONLY:-.} ]] || continue
  [ -f "$input" ] || { echo "| $name | missing: $input |"; continue; }
  bytes=$(wc -c < "$input")
  row="| $name | $(python3 -c "print(f'{$bytes / 1e6:.2f}')")"
  for b in "${bins[@]}"; do
    read -r kb wall tests < <(peak "$b" "$input" "$test" "$args")
    row+=$(python3 -c "print(f' | {$kb * 1024 / 1e6:.0f} | {$kb * 1024 / $bytes:.1f}x | $wall | $tests')")
  done
  echo "$row |"
done
