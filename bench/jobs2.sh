#!/usr/bin/env bash
# -j2 against -j1 with the cases' real tests (no added sleep), one reduction at a time.
#
#   bench/jobs2.sh CASE_DIR...
#
# CASE_DIR holds input.c (or the file its input.name names) and test.sh (a prepared case of /work/shared/bench/cases, or a fixture
# with interesting.sh). Prints a Markdown table: wall time and test runs at -j1 and -j2, the
# speedup, the ratio of test runs, and whether both outputs are byte-identical.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
(cd "$root" && cargo build --release --quiet) || { echo "build failed" >&2; exit 1; }
bin="$target/release/reduce"
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-jobs2.XXXXXX")

stat() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

run_one() { # case_dir jobs -> "wall tests test_seconds sha"
  local dir=$1 jobs=$2 w test
  w=$(mktemp -d "$work/$(basename "$dir").$jobs.XXXX")
  test=$dir/test.sh
  [ -f "$test" ] || test=$dir/interesting.sh
  local input=input.c
  [ -f "$dir/input.name" ] && input=$(cat "$dir/input.name")
  cp "$dir/$input" "$w/$input"
  mkdir -p "$w/tmp"
  (cd "$w" && "$bin" -q -j "$jobs" --temp-dir "$w/tmp" --no-persistent-cache \
      --stats-json "$w/stats.json" --test "$test" -o "$w/out.c" "$input") || { echo "reduce failed in $w" >&2; return 1; }
  echo "$(stat "$w/stats.json" wall_seconds) $(stat "$w/stats.json" tests) \
$(stat "$w/stats.json" test_seconds) $(sha256sum "$w/out.c" | cut -c1-12)"
}

echo "| case | mean test ms | -j1 wall s / runs | -j2 wall s / runs | speedup | runs ratio | output |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
for dir in "$@"; do
  dir=$(cd "$dir" && pwd)
  read -r w1 t1 s1 sha1 < <(run_one "$dir" 1) || continue
  read -r w2 t2 _ sha2 < <(run_one "$dir" 2) || continue
  python3 - "$(basename "$dir")" "$w1" "$t1" "$s1" "$w2" "$t2" "$sha1" "$sha2" <<'EOF'
import sys
name, w1, t1, s1, w2, t2, a, b = sys.argv[1:]
w1, t1, s1, w2, t2 = float(w1), int(t1), float(s1), float(w2), int(t2)
same = f"identical ({a})" if a == b else f"DIFFERS ({a} vs {b})"
print(f"| {name} | {1000 * s1 / t1:.0f} | {w1:.1f} / {t1} | {w2:.1f} / {t2} | "
      f"{w1 / w2:.2f}x | {t2 / t1:.2f} | {same} |")
EOF
done
rm -rf "$work"
