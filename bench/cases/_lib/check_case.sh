#!/bin/bash
# usage: check_case.sh CASE_DIR 'FIXED STRING' | check_case.sh CASE_DIR -e SED_SCRIPT
# Checks a case the way bench/cases want it: prepare.sh twice gives the same bytes; test.sh passes
# on the input (as `test.sh FILE` and C-Reduce style, no argument, in a directory holding the
# input), fails on an empty file and on the input without the property: its lines that contain
# FIXED STRING removed, or with -e, the input edited by SED_SCRIPT (e.g. the one edit that takes
# the property away and keeps the file valid). Prints the input's size and the test's wall and CPU
# time.
set -uo pipefail
case_dir=$(cd "$1" && pwd); needle=$2; script=""
if [ "$needle" = -e ]; then script=$3; fi
name=$(cat "$case_dir/input.name" 2>/dev/null || echo input.c)
in="$case_dir/$name"
fail() { echo "FAIL: $*"; exit 1; }
"$case_dir/prepare.sh" > /dev/null 2>&1 || fail "prepare.sh"
a=$(sha256sum < "$in"); "$case_dir/prepare.sh" > /dev/null 2>&1 || fail "prepare.sh (2)"
b=$(sha256sum < "$in"); [ "$a" = "$b" ] || fail "prepare.sh is not deterministic"
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
cp "$in" "$w/$name"
t0=$(date +%s.%N)
(cd "$w" && "$case_dir/test.sh" "$name") > /dev/null 2>&1 || fail "test.sh FILE rejects the input"
t1=$(date +%s.%N)
(cd "$w" && "$case_dir/test.sh") > /dev/null 2>&1 || fail "test.sh (no argument) rejects the input"
cpu=$( { /usr/bin/time -f '%U %S' bash -c "cd '$w' && '$case_dir/test.sh' '$name' > /dev/null 2>&1"; } 2>&1 | tail -1)
mkdir "$w/e" && : > "$w/e/$name"
(cd "$w/e" && "$case_dir/test.sh" "$name") > /dev/null 2>&1 && fail "test.sh accepts an empty file"
mkdir "$w/r"
if [ -n "$script" ]; then
  sed -e "$script" "$in" > "$w/r/$name"
  cmp -s "$in" "$w/r/$name" && fail "the sed script changes nothing"
  what="edited by sed ($(diff "$in" "$w/r/$name" | grep -c '^<') line(s))"
else
  grep -vF -- "$needle" "$in" > "$w/r/$name"
  n=$(( $(wc -l < "$in") - $(wc -l < "$w/r/$name") ))
  [ "$n" -gt 0 ] || fail "no line contains the property string"
  what="$n property line(s) removed"
fi
(cd "$w/r" && "$case_dir/test.sh" "$name") > /dev/null 2>&1 && fail "test.sh accepts the input without the property ($what)"
printf '%s: ok: sha256 %s, %s bytes, %s lines, test %.2f s wall, %s s CPU (user sys); %s -> rejected\n' \
  "$(basename "$case_dir")" "$(echo "$a" | cut -c1-16)" "$(wc -c < "$in")" "$(wc -l < "$in")" \
  "$(python3 -c "print($t1 - $t0)")" "$cpu" "$what"
