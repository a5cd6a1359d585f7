#!/bin/sh
# Interesting iff the candidate still calls report_bug(...) (a line with the call that is not its
# declaration) and compiles as C99 with the usual sloppiness turned into errors, so a reducer
# cannot win with garbage.
f="${1:-input.c}"
grep -v 'void *report_bug' "$f" | grep -q 'report_bug *(' || exit 1
gcc -std=c99 -fsyntax-only -Werror=implicit-function-declaration -Werror=implicit-int \
    -Werror=return-type -Werror=int-conversion -Werror=incompatible-pointer-types \
    -x c "$f" >/dev/null 2>&1
