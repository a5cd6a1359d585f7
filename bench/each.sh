#!/usr/bin/env bash
# Issue 41's benchmark: a folder of fuzz crashes in one command against reducing them one by one.
#
#   bench/each.sh [-n CRASHES_PER_BUG] [-h HARMLESS] [-j JOBS]
#
# Builds the fuzz target of the tests (fixtures/each/target.c: a heap overflow, a use-after-free,
# a null dereference, an assertion; gcc -fsanitize=address,undefined -g) and generates a folder
# of N crashes of each bug (default 25: 100 crashes) with noise around each trigger (20 to 60
# tokens on either side, seeded: the same folder every time), plus H files that do not crash
# (default 4). Then, each with its own empty persistent cache, one at a time, --algo bytes and
# --same-failure throughout:
#
#   each   reduce --each crashes -o bugs --same-failure -- ./target @@
#   alone  reduce --same-failure -o OUT FILE -- ./target @@, for the smallest crash of each bug
#          (the file --each reduces): the cost of one reduction per bug
#   loop   for f in crashes/*; do reduce --same-failure -o out/$f "$f" -- ./target @@; done
#
# and prints a Markdown table: test runs (for a one-file run, its record's `tests` plus the one
# uncounted run --same-failure takes the signature with) and wall seconds, with the ratios the
# issue sets as targets (each <= 1.5x alone in tests; each <= 0.5x loop in wall). Needs python3.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
per_bug=25
harmless=4
jobs=2
while getopts "n:h:j:" opt; do
  case $opt in n) per_bug=$OPTARG ;; h) harmless=$OPTARG ;; j) jobs=$OPTARG ;; *) exit 2 ;; esac
done

(cd "$root" && cargo build --release --quiet) || { echo "build failed" >&2; exit 1; }
reduce_bin="${CARGO_TARGET_DIR:-$root/target}/release/reduce"
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-each-bench.XXXXXX")
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
gcc -fsanitize=address,undefined -g -o target "$root/fixtures/each/target.c" || exit 1

# the folder: AFL-style names; bugs.tsv says which bug each file is (0-3; - for harmless)
python3 - "$per_bug" "$harmless" <<'PY'
import os, random, sys
per_bug, harmless = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(41)
alphabet = "abgjkmqvwxz0123456789"  # no letter of the target's keywords
def tokens(n):
    return "".join("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))
                   + rng.choice(" \n ") for _ in range(n))
def trigger(bug):
    return [lambda: f"len={rng.randint(9, 60)} {tokens(1)}copy",
            lambda: f"free {tokens(rng.randint(0, 2))}use",
            lambda: "nil",
            lambda: f"depth={rng.randint(5, 90)}"][bug]()
os.makedirs("crashes")
rows, n = [], 0
for k in range(per_bug):
    for bug in range(4):
        name = f"id:{n:06},sig:06,src:{k:06},op:havoc,rep:{1 + k % 8}"
        text = tokens(rng.randint(20, 60)) + trigger(bug) + " " + tokens(rng.randint(20, 60))
        open(os.path.join("crashes", name), "w").write(text)
        rows.append((name, str(bug)))
        n += 1
for _ in range(harmless):
    name = f"id:{n:06},src:000001,op:flip1,pos:3"
    open(os.path.join("crashes", name), "w").write(tokens(40) + "len=3 copy " + tokens(20))
    rows.append((name, "-"))
    n += 1
open("bugs.tsv", "w").write("".join(f"{a}\t{b}\n" for a, b in rows))
PY

field() { # FILE EXPR: a field of a JSON record
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
now() { date +%s.%N; }
one() { # FILE OUT: one file reduced alone; prints its test runs
  local f=$1 out=$2
  "$reduce_bin" -q -j "$jobs" --same-failure --algo bytes --stats-json "$out.json" -o "$out" "$f" -- ./target @@ \
    2>/dev/null
  if [ -f "$out.json" ]; then echo $(( $(field "$out.json" 'r["tests"]') + 1 )); else echo 1; fi
}

# each
export XDG_CACHE_HOME="$work/cache-each"
t0=$(now)
"$reduce_bin" -q -j "$jobs" --each crashes -o bugs --same-failure --algo bytes -- ./target @@ || exit 1
t1=$(now)
each_tests=$(field bugs/index.json 'r["tests"]')
each_wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
each_bugs=$(field bugs/index.json 'len(r["bugs"])')

# alone: the smallest crash of each bug
export XDG_CACHE_HOME="$work/cache-alone"
mkdir -p alone
alone_tests=0
t0=$(now)
for bug in 0 1 2 3; do
  f=$(awk -F'\t' -v b="$bug" '$2 == b { print $1 }' bugs.tsv | while read -r n; do
        printf '%s\t%s\n' "$(wc -c < "crashes/$n")" "$n"; done | sort -n -k1,1 -k2,2 | head -1 | cut -f2)
  alone_tests=$(( alone_tests + $(one "crashes/$f" "alone/$bug.bin") ))
done
t1=$(now)
alone_wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")

# loop: every file
export XDG_CACHE_HOME="$work/cache-loop"
mkdir -p loop
loop_tests=0
t0=$(now)
for f in crashes/*; do
  loop_tests=$(( loop_tests + $(one "$f" "loop/$(basename "$f")") ))
done
t1=$(now)
loop_wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")

files=$(ls crashes | wc -l)
python3 - "$files" "$each_bugs" "$each_tests" "$each_wall" "$alone_tests" "$alone_wall" "$loop_tests" "$loop_wall" "$jobs" <<'PY'
import sys
files, bugs, et, ew, at, aw, lt, lw, jobs = sys.argv[1:]
et, ew, at, aw, lt, lw = int(et), float(ew), int(at), float(aw), int(lt), float(lw)
print(f"{files} files ({bugs} bugs found by --each), --algo bytes --same-failure, -j{jobs}\n")
print("| run | test runs | wall s | tests / alone | wall / loop |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| each: `reduce --each` | {et} | {ew:.1f} | {et/at:.2f} | {ew/lw:.2f} |")
print(f"| alone: the smallest crash of each bug, one run each | {at} | {aw:.1f} | 1.00 | {aw/lw:.2f} |")
print(f"| loop: `reduce` on every file | {lt} | {lw:.1f} | {lt/at:.2f} | 1.00 |")
print()
print(f"targets: tests <= 1.5x alone: {'met' if et <= 1.5 * at else 'MISSED'} ({et/at:.2f}x); "
      f"wall <= 0.5x loop: {'met' if ew <= 0.5 * lw else 'MISSED'} ({ew/lw:.2f}x)")
PY
