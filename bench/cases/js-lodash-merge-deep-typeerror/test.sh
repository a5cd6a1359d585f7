#!/bin/bash
# Interesting iff the file parses (`node --check`) and running it stops with
# "TypeError: Cannot read properties of undefined (reading 'length')" thrown in a function named
# `baseMergeDeep` (the top stack frame) that module-level code called (a later frame is
# `Object.<anonymous>`, node's name for a CommonJS module's body). Runs in its own temp dir, as
# input.js.
f="${1:-input.js}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/input.js" || exit 1
cd "$d" || exit 2
timeout 10 node --check input.js > /dev/null 2>&1 || exit 1
err=$(timeout 10 node input.js 2>&1 > /dev/null < /dev/null)
printf '%s\n' "$err" | grep -qx "TypeError: Cannot read properties of undefined (reading 'length')" || exit 1
frames=$(printf '%s\n' "$err" | grep '^    at ')
printf '%s\n' "$frames" | head -n 1 | grep -q '^    at baseMergeDeep (.*input\.js:[0-9]*:[0-9]*)$' || exit 1
printf '%s\n' "$frames" | tail -n +2 | grep -q '^    at Object\.<anonymous> (.*input\.js:[0-9]*:[0-9]*)$'
