#!/usr/bin/env bash
# Scaling with -j, runnable on a 2-core machine: the test is a case's real test plus `sleep 0.2`,
# so most of a test run is waiting and N workers can overlap N runs.
#
#   bench/scaling.sh [-j "1 2 4 8 16 32"] [-l JOBS] [-m] CASE_DIR...
#
# CASE_DIR holds input.c and test.sh (or interesting.sh), e.g. fixtures/inventory or a prepared
# case of /work/shared/bench/cases. For each case and each -j: wall time, speedup over -j1,
# test runs, worker utilisation test_seconds / (wall x j), how busy the thread feeding the
# workers was (1 - wait_seconds / wall: planning, rendering, parsing), and whether the output is
# byte-identical to -j1's. With -l JOBS (and SLURM_CONF set, see scripts/slurm-start.sh) the
# same run also goes through `srun` at -j JOBS: one job per test (mode slurm), and job steps
# inside one `salloc` allocation (mode salloc). Rows go to bench/scaling.tsv (appended), the
# Markdown table to stdout. Extra reduce flags: $REDUCE_ARGS. One reduction at a time.
#
# -m (memo): the real test runs once per distinct candidate; its exit status is kept under the
# candidate's hash (one file per case, shared by every -j and mode) and later runs of the same
# bytes only sleep. The real test's own computing (gcc for 10-25 ms) then leaves this machine:
# at -j32 on 2 CPUs it would otherwise saturate them, so that the table measured the CPUs rather
# than the speculation. Every width first runs once unmeasured, to fill the memo with the
# candidates its speculation tries; the measured runs then hit it almost always.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
widths="1 2 4 8 16 32"
slurm_jobs=""
memo=""
while getopts "j:l:m" opt; do
  case $opt in j) widths=$OPTARG ;; l) slurm_jobs=$OPTARG ;; m) memo=1 ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-j WIDTHS] [-l JOBS] [-m] CASE_DIR..." >&2; exit 2; }

target=${CARGO_TARGET_DIR:-$root/target}
(cd "$root" && cargo build --release --quiet) || { echo "build failed" >&2; exit 1; }
bin="$target/release/reduce"
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-scaling.XXXXXX")
tsv="$here/scaling.tsv"
[ -f "$tsv" ] || printf 'case\tmode\tjobs\twall_s\ttests\ttest_s\tutilisation\tfinal_bytes\tsha\n' > "$tsv"

stat() { python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))" "$1" "$2"; }

run_one() { # case_dir name mode jobs -> prints "wall tests test_s bytes sha"
  local dir=$1 name=$2 mode=$3 jobs=$4 w test
  w=$(mktemp -d "$work/$name.$mode.$jobs.XXXX")
  test=$dir/test.sh
  [ -f "$test" ] || test=$dir/interesting.sh
  if [ -n "$memo" ]; then
    # the memo: "hash:status" lines, appended whole (O_APPEND) by concurrent tests
    printf '#!/bin/sh\nf="${1:-input.c}"\nh=$(md5sum < "$f")\nrc=$(grep -m1 -F "$h:" "%s" | cut -d: -f2)\nif [ -z "$rc" ]; then "%s" "$@"; rc=$?; echo "$h:$rc" >> "%s"; fi\nsleep 0.2\nexit $rc\n' \
      "$work/$name.memo" "$test" "$work/$name.memo" > "$w/test.sh"
    touch "$work/$name.memo"
  else
    printf '#!/bin/sh\n"%s" "$@"; rc=$?\nsleep 0.2\nexit $rc\n' "$test" > "$w/test.sh"
  fi
  chmod +x "$w/test.sh"
  cp "$dir/input.c" "$w/input.c"
  mkdir -p "$w/tmp"
  local extra=() alloc=()
  if [ "$mode" = salloc ]; then
    # one allocation of JOBS tasks, each test a job step inside it (no per-test job allocation)
    alloc=(salloc -Q -O -n "$jobs")
    extra=(--launcher 'srun --exact -O -n1 -Q -J {name} --chdir={dir} --' --work-dir "$w/tmp")
  elif [ "$mode" = slurm ]; then
    extra=(--launcher 'srun -Q -J {name} --chdir={dir} --' --work-dir "$w/tmp")
  else
    extra=(--temp-dir "$w/tmp")
  fi
  (cd "$w" && ${alloc[@]+"${alloc[@]}"} "$bin" -q -j "$jobs" "${extra[@]}" ${REDUCE_ARGS:-} --stats-json "$w/stats.json" \
      --test "$w/test.sh" -o "$w/out.c" input.c) || { echo "reduce failed in $w" >&2; return 1; }
  echo "$(stat "$w/stats.json" wall_seconds) $(stat "$w/stats.json" tests) \
$(stat "$w/stats.json" test_seconds) $(wc -c < "$w/out.c") $(sha256sum "$w/out.c" | cut -c1-12) \
$(stat "$w/stats.json" wait_seconds)"
}

for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  name=$(basename "$dir")
  if [ -n "$memo" ]; then
    echo "## $name (memoized test + sleep 0.2)"
    for m in $widths; do run_one "$dir" "$name" local "$m" > /dev/null || true; done
  else
    echo "## $name (test + sleep 0.2)"
  fi
  echo
  echo "| mode | -j | wall s | speedup | test runs | utilisation | feeder busy | output |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  base_wall="" base_sha=""
  modes=()
  for j in $widths; do modes+=("local:$j"); done
  [ -n "$slurm_jobs" ] && modes+=("slurm:$slurm_jobs" "salloc:$slurm_jobs")
  for m in "${modes[@]}"; do
    mode=${m%%:*} j=${m##*:}
    read -r wall tests test_s bytes sha wait_s < <(run_one "$dir" "$name" "$mode" "$j") || continue
    [ -z "$base_wall" ] && { base_wall=$wall; base_sha=$sha; }
    util=$(python3 -c "print(f'{$test_s / ($wall * $j):.2f}')")
    busy=$(python3 -c "print(f'{1 - $wait_s / $wall:.2f}' if $wait_s else '-')")
    speed=$(python3 -c "print(f'{$base_wall / $wall:.1f}x')")
    same=$([ "$sha" = "$base_sha" ] && echo "identical ($sha)" || echo "DIFFERS ($sha vs $base_sha)")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$mode" "$j" "$wall" "$tests" "$test_s" \
      "$util" "$bytes" "$sha" >> "$tsv"
    printf '| %s | %s | %.1f | %s | %s | %s | %s | %s |\n' "$mode" "$j" "$wall" "$speed" "$tests" "$util" \
      "$busy" "$same"
  done
  echo
done
rm -rf "$work"
