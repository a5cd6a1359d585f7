#!/bin/bash
# Interesting iff node dies with "TypeError: Cannot read properties of undefined (reading 'name')"
# thrown by code that a function named `template` compiled (`new Function`: the top frame is
# `eval at template`), called from a function named `template`. Runs in its own temp dir.
f="${1:-input.js}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/input.js" || exit 1
err=$(cd "$d" && timeout 5 node input.js 2>&1 >/dev/null < /dev/null)
printf '%s\n' "$err" | grep -qx "TypeError: Cannot read properties of undefined (reading 'name')" || exit 1
frames=$(printf '%s\n' "$err" | grep '^    at ' | head -n 2)
printf '%s\n' "$frames" | head -n 1 | grep -q '^    at eval (eval at template (' || exit 1
printf '%s\n' "$frames" | tail -n 1 | grep -q '^    at template ('
