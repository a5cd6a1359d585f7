#!/bin/bash
# Interesting iff lua5.4 stops with the error "bad property 'convert' (function or table expected,
# got string)" raised (by `error`) directly in a function named `typecheck`. Runs in its own
# temp dir.
f="${1:-input.lua}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/input.lua" || exit 1
err=$(cd "$d" && timeout 5 lua5.4 input.lua 2>&1 >/dev/null < /dev/null)
printf '%s\n' "$err" | head -n 1 |
  grep -q ": bad property 'convert' (function or table expected, got string)$" || exit 1
printf '%s\n' "$err" | grep -A 1 -x "$(printf '\t')\[C\]: in function 'error'" |
  grep -qE "in (upvalue|local|function) 'typecheck'$"
