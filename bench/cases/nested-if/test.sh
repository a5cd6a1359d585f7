#!/bin/sh
# Interesting iff the candidate still calls crash() and still compiles (C89 rules, every warning an error: implicit function
# declarations allowed). Works with the candidate as $1 or C-Reduce style on ./input.c.
f="${1:-input.c}"
grep -q 'crash *( *) *;' "$f" || exit 1
gcc -std=gnu89 -Werror -fsyntax-only -x c "$f" >/dev/null 2>&1
