#!/usr/bin/env bash
# Two reduce binaries side by side on the same cases, one reduction at a time, alternating:
# outputs, test runs and wall time at each -j with the cases' real tests, and at each -j with
# the memoized sleep oracle (the real test once per distinct candidate, then `sleep 0.2`, as
# bench/scaling.sh -m), so that wide -j measures the speculation rather than the CPUs.
#
#   bench/compare.sh [-j "1 2"] [-s "8 32"] [-c CAP] BEFORE_BIN AFTER_BIN CASE_DIR...
#
# CASE_DIR holds the input (input.c, or the name in input.name) and test.sh (or interesting.sh):
# a prepared case of the shared bench, a case of bench/cases, or a fixture. Prints one
# Markdown table; rows also go to bench/compare.tsv. CAP (default 600 s) bounds each run. With
# COMPARE_STATS=DIR, each run's --stats-json is kept as DIR/CASE.before|after.MODE-JOBS.json (the
# tokens and the passes: which ran, and what each removed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
real_widths="1 2"
sleep_widths="8 32"
cap=600
while getopts "j:s:c:" opt; do
  case $opt in j) real_widths=$OPTARG ;; s) sleep_widths=$OPTARG ;; c) cap=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { echo "usage: $0 [-j WIDTHS] [-s WIDTHS] [-c CAP] BEFORE AFTER CASE_DIR..." >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2")
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
tsv="$here/compare.tsv"
[ -f "$tsv" ] || printf 'case\tmode\tjobs\tbin\twall_s\ttests\tbytes\tsha\n' > "$tsv"

stat() { python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))" "$1" "$2"; }

# run BIN CASE_DIR MODE JOBS -> "wall tests bytes sha"
run() {
  local bin=$1 dir=$2 mode=$3 jobs=$4 name w test input label=after
  [ "$bin" = "$before" ] && label=before
  name=$(basename "$dir")
  w=$(mktemp -d "$work/$name.XXXX")
  test=$dir/test.sh
  [ -f "$test" ] || test=$dir/interesting.sh
  input=input.c
  [ -f "$dir/input.name" ] && input=$(cat "$dir/input.name")
  [ -f "$dir/$input" ] || input=$(cd "$dir" && ls input.* | head -1)
  if [ "$mode" = sleep ]; then
    printf '#!/bin/sh\nf="${1:-%s}"\nh=$(md5sum < "$f")\nrc=$(grep -m1 -F "$h:" "%s" | cut -d: -f2)\nif [ -z "$rc" ]; then "%s" "$@"; rc=$?; echo "$h:$rc" >> "%s"; fi\nsleep 0.2\nexit $rc\n' \
      "$input" "$work/$name.memo" "$test" "$work/$name.memo" > "$w/t.sh"
    touch "$work/$name.memo"
  else
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$test" > "$w/t.sh"
  fi
  chmod +x "$w/t.sh"
  cp "$dir/$input" "$w/$input"
  mkdir -p "$w/tmp"
  (cd "$w" && REDUCE_BIN="$bin" timeout "$cap" "$bin" -q -j "$jobs" --temp-dir "$w/tmp" --no-persistent-cache \
      --stats-json "$w/stats.json" --test "$w/t.sh" -o "$w/out" "$input") >/dev/null 2>&1
  if [ ! -f "$w/stats.json" ]; then echo "- - - failed"; return; fi
  echo "$(stat "$w/stats.json" wall_seconds) $(stat "$w/stats.json" tests) $(wc -c < "$w/out") \
$(sha256sum "$w/out" | cut -c1-12)"
  [ -n "${COMPARE_STATS:-}" ] && cp "$w/stats.json" "$COMPARE_STATS/$name.$label.$mode-$jobs.json"
  rm -rf "$w"
}

echo "| case | mode | -j | before: wall s / runs / bytes | after: wall s / runs / bytes | wall after/before | output |"
echo "| --- | --- | ---: | --- | --- | ---: | --- |"
for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  name=$(basename "$dir")
  rows=()
  for j in $real_widths; do rows+=("real:$j"); done
  for j in $sleep_widths; do rows+=("sleep:$j"); done
  for r in "${rows[@]}"; do
    mode=${r%%:*} j=${r##*:}
    # the memo is filled first by a run of each binary, unmeasured
    if [ "$mode" = sleep ]; then run "$before" "$dir" sleep "$j" > /dev/null; run "$after" "$dir" sleep "$j" > /dev/null; fi
    read -r bw bt bb bs < <(run "$before" "$dir" "$mode" "$j")
    read -r aw at ab as < <(run "$after" "$dir" "$mode" "$j")
    printf '%s\t%s\t%s\tbefore\t%s\t%s\t%s\t%s\n%s\t%s\t%s\tafter\t%s\t%s\t%s\t%s\n' \
      "$name" "$mode" "$j" "$bw" "$bt" "$bb" "$bs" "$name" "$mode" "$j" "$aw" "$at" "$ab" "$as" >> "$tsv"
    ratio=$(python3 -c "print(f'{float(\"$aw\") / float(\"$bw\"):.2f}')" 2>/dev/null || echo -)
    same=$([ "$bs" = "$as" ] && echo "identical" || echo "differs ($bs / $as)")
    printf '| %s | %s | %s | %s / %s / %s | %s / %s / %s | %s | %s |\n' \
      "$name" "$mode" "$j" "$bw" "$bt" "$bb" "$aw" "$at" "$ab" "$ratio" "$same"
  done
done
rm -rf "$work"
