#!/usr/bin/env bash
# Measures reducers side by side on cases laid out as CASE/{INPUT | prepare.sh, test.sh}, where
# INPUT is named by CASE/input.name (default input.c: input.cc, input.rs, input.py, input.smt2).
#
#   bench/bench.sh [-c CAP_SECONDS] [-t TOOLS] [CASES_DIR | CASE_DIR]...
#
# Builds the release binary, then for every case runs each tool that is installed, one run at a
# time: `reduce` (perses, default -j), `reduce-j1` (perses -j1, which must give byte-identical
# output), `reduce-deletion` (perses --no-rewrites: deletion only, for comparison),
# `reduce-ddmin` (ddmin over lines; only when named with -t), `reduce-rename` (perses --rename:
# short names, to compare bytes with C-Reduce, which renames; only when named), `reduce-compact`
# (--rename --compact: the fewest-bytes layout too; only when named), and creduce, cvise,
# shrinkray, treereduce-c/-rust when found (C-Reduce and C-Vise get --not-c on inputs that are
# neither C nor C++; Shrink Ray runs with --parallelism 2, --no-llm (its language-model passes
# would download a model) and --no-history; it is found as $SHRINKRAY, on PATH, or in the venv
# /opt/shrinkray that bench/install-peers.sh makes). Each run gets a fresh copy of the input and a wrapped test that counts calls. Rows go to bench/results.tsv; the table to bench/table.md (bench/RESULTS.md is kept by hand: copy the rows that matter into it).
# Peak RSS is /usr/bin/time's %M: the largest single process of the run, the reducer or a test
# (a compiler on a large input can be the larger).
# Defaults: CAP 300 s, cases bench/cases. Needs python3 (token counts) and GNU timeout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cap=300
tools="reduce reduce-j1 creduce cvise shrinkray treereduce-c treereduce-rust"
while getopts "c:t:" opt; do
  case $opt in c) cap=$OPTARG ;; t) tools=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- "$here/cases"

(cd "$root" && cargo build --release --quiet) || { echo "build failed" >&2; exit 1; }
reduce_bin="${CARGO_TARGET_DIR:-$root/target}/release/reduce"
work=$(mktemp -d "${TMPDIR:-/tmp}/reduce-bench.XXXXXX")
tsv="$here/results.tsv"
[ "${APPEND:-0}" = 1 ] || printf 'tool\tcase\texit\twall_s\ttests\torig_bytes\tfinal_bytes\torig_tokens\tfinal_tokens\tpasses\tsha\tpeak_rss_kb\n' > "$tsv"

case_dirs() { # absolute paths: the tests run from temp directories
  for arg in "$@"; do
    arg=$(cd "$arg" && pwd) || continue
    if [ -f "$arg/test.sh" ]; then echo "$arg"; else
      for d in "$arg"/*/; do [ -f "$d/test.sh" ] && echo "${d%/}"; done
    fi
  done
}

shrinkray_bin() { # Shrink Ray needs Python >= 3.12: often in a venv of its own
  local b
  for b in "${SHRINKRAY:-}" "$(command -v shrinkray)" /opt/shrinkray/bin/shrinkray; do
    [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return 0; }
  done
  return 1
}

installed() {
  case $1 in
    shrinkray) shrinkray_bin >/dev/null ;;
    reduce|reduce-j1|reduce-deletion|reduce-ddmin|reduce-rename|reduce-compact) return 0 ;;
    treereduce-c|treereduce-rust) command -v "$1" >/dev/null || [ -x "$HOME/.cargo/bin/$1" ] ;;
    *) command -v "$1" >/dev/null ;;
  esac
}

input_name() { cat "$1/input.name" 2>/dev/null || echo input.c; }

# tokens FILE: C and C++ by bench/ctokens.py (as before), other languages by reduce's own tree
tokens() {
  case $1 in
    *.c|*.h|*.i|*.cc|*.cpp|*.cxx|*.hpp|*.ii) python3 "$here/ctokens.py" "$1" ;;
    *) "$reduce_bin" --dump-tree --test /bin/true "$1" | grep -cE '^ *(sep )?"' ;;
  esac
}

run_one() { # tool casedir
  local tool=$1 casedir=$2 name w out rc start end input notc=""
  name=$(basename "$casedir")
  input=$(input_name "$casedir")
  case $input in *.c|*.h|*.i|*.cc|*.cpp|*.cxx|*.hpp|*.ii) ;; *) notc=--not-c ;; esac
  case $tool in treereduce-c) case $input in *.c|*.h|*.i) ;; *) return ;; esac ;; esac
  case $tool in treereduce-rust) case $input in *.rs) ;; *) return ;; esac ;; esac
  # a short path: C-Vise's Python puts a Unix socket under TMPDIR, whose path may not pass
  # 107 bytes (a long case name made it fail at its first pass)
  w=$(mktemp -d "$work/${tool:0:8}.XXXX")
  echo "$name" > "$w/case"
  mkdir -p "$w/red" "$w/tmp"
  cp "$casedir/$input" "$w/red/$input"
  : > "$w/calls"
  printf '#!/bin/sh\necho . >> "%s"\nexec "%s" "$@"\n' "$w/calls" "$casedir/test.sh" > "$w/test.sh"
  chmod +x "$w/test.sh"
  out="$w/red/$input"
  start=$(date +%s.%N)
  (
    cd "$w/red" || exit 1
    export TMPDIR="$w/tmp"
    # a private verdict cache per run: no run reuses another's verdicts
    export XDG_CACHE_HOME="$w/cache"
    # peak RSS (kB) of the largest process of the run: the reducer or one of its tests
    tm=(/usr/bin/time -f %M -o "$w/rss")
    case $tool in
      reduce) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q --algo perses --stats-json "$w/stats.json" --test "$w/test.sh" "$input" ;;
      reduce-j1) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q -j1 --algo perses --stats-json "$w/stats.json" --test "$w/test.sh" "$input" ;;
      reduce-deletion) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q --algo perses --no-rewrites --stats-json "$w/stats.json" --test "$w/test.sh" "$input" ;;
      reduce-ddmin) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q --algo ddmin --test "$w/test.sh" "$input" ;;
      reduce-rename) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q --algo perses --rename --stats-json "$w/stats.json" --test "$w/test.sh" "$input" ;;
      reduce-compact) "${tm[@]}" timeout -k 10 "$cap" "$reduce_bin" -q --algo perses --rename --compact --stats-json "$w/stats.json" --test "$w/test.sh" "$input" ;;
      creduce) "${tm[@]}" timeout -k 10 "$cap" creduce $notc --n 2 "$w/test.sh" "$input" ;;
      cvise) "${tm[@]}" timeout -k 10 "$cap" cvise $notc --n 2 "$w/test.sh" "$input" ;;
      shrinkray) SHRINKRAY_LLM=0 "${tm[@]}" timeout -k 10 "$cap" "$(shrinkray_bin)" --ui basic --parallelism 2 \
        --no-llm --no-history "$w/test.sh" "$input" ;;
      treereduce-c|treereduce-rust)
        tr=$(command -v "$tool" || echo "$HOME/.cargo/bin/$tool")
        "${tm[@]}" timeout -k 10 "$cap" "$tr" -s "$input" -o "$w/red/out.$input" --temp-dir "$w/tmp" -- "$w/test.sh" @@ ;;
    esac
  ) > "$w/log" 2>&1 < /dev/null
  rc=$?
  end=$(date +%s.%N)
  # run as root, `tcc ... -o /dev/null` (the csmith case's test) replaces /dev/null with its
  # object file, and every later read of /dev/null returns it: put the device back
  if [ ! -c /dev/null ] && [ "$(id -u)" = 0 ]; then
    rm -f /dev/null && mknod -m 666 /dev/null c 1 3
    echo "bench: /dev/null had been replaced by a regular file (tcc -o /dev/null as root); restored" >&2
  fi
  case $tool in treereduce-*) out="$w/red/out.$input" ;; esac
  local wall tests ob fb ot ft passes sha rss
  rss=$(tail -n 1 "$w/rss" 2>/dev/null | grep -E '^[0-9]+$' || echo NA)
  wall=$(python3 -c "print('%.1f' % ($end - $start))")
  tests=$(wc -l < "$w/calls")
  ob=$(wc -c < "$casedir/$input"); ot=$(tokens "$casedir/$input")
  if [ -f "$out" ]; then
    mkdir -p "$w/check" && cp "$out" "$w/check/$input"
    fb=$(wc -c < "$out"); ft=$(tokens "$w/check/$input"); sha=$(sha256sum < "$out" | cut -c1-12)
    if (cd "$w/check" && timeout 120 "$casedir/test.sh" "$input" >/dev/null 2>&1); then passes=yes; else passes=no; fi
  else
    fb=NA; ft=NA; passes=missing; sha=-
  fi
  # reduce's own record (per-pass figures, share of rejected candidates), kept next to the table
  if [ -f "$w/stats.json" ]; then mkdir -p "$here/stats" && cp "$w/stats.json" "$here/stats/$tool.$name.json"; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$name" "$rc" "$wall" "$tests" "$ob" "$fb" "$ot" "$ft" "$passes" "$sha" "$rss" | tee -a "$tsv"
}

for casedir in $(case_dirs "$@"); do
  local_case=$casedir
  if [ ! -f "$casedir/$(input_name "$casedir")" ]; then
    # a read-only case folder (e.g. ../shared/bench/cases): prepare a private copy
    local_case="$work/cases/$(basename "$casedir")"
    mkdir -p "$work/cases" && cp -r "$casedir" "$local_case" && chmod -R u+w "$local_case"
    [ -d "$casedir/../_lib" ] && cp -r "$casedir/../_lib" "$work/cases/" 2>/dev/null
    "$local_case/prepare.sh" >&2 || { echo "$casedir: prepare.sh failed" >&2; continue; }
  fi
  for tool in $tools; do
    installed "$tool" && run_one "$tool" "$local_case"
  done
done
python3 "$here/table.py" "$tsv" > "$here/table.md"
if [ -n "${KEEP_WORK:-}" ]; then
  echo "wrote $here/table.md (work files kept in $work)" >&2
else
  rm -rf "$work"
  echo "wrote $here/table.md (KEEP_WORK=1 keeps the work files)" >&2
fi
