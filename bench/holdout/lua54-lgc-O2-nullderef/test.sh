#!/bin/bash
# Interesting iff: the file compiles with gcc -O2 -c (the usual "no garbage" diagnostics turned
# into errors) AND -Wnull-dereference reports a definite "null pointer dereference" (not the
# "potential ..." variant) for code in function `propagatemark`. Every test is a full -O2 compile.
f="${1:-input.c}"
# the object file goes beside the candidate (a reducer's temp dir), never to /dev/null (gcc
# unlinks its output on failure) nor to /tmp (a killed test would leave it behind)
o=$(/usr/bin/mktemp -p "$(/usr/bin/dirname "$f")" .obj.XXXXXX) || exit 1
out=$(LC_ALL=C /usr/bin/timeout 20 /usr/bin/gcc -x c -O2 -c -o "$o" -Wnull-dereference \
  -fno-diagnostics-color -Werror=implicit-function-declaration -Werror=implicit-int \
  -Werror=int-conversion -Werror=incompatible-pointer-types -Werror=return-type "$f" 2>&1)
rc=$?; /usr/bin/rm -f "$o"; [ $rc -eq 0 ] || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /In function / { fn = $0; sub(/.*In function .?/, "", fn); sub(/.[,:]$/, "", fn) }
  /warning: null pointer dereference \[-Wnull-dereference\]/ { if (fn == "propagatemark") ok = 1 }
  END { exit !ok }'
