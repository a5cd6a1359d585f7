#!/bin/bash
# Interesting iff: the file compiles with gcc -O2 -c (the usual "no garbage" diagnostics turned
# into errors) AND -Wnull-dereference still reports a "potential null pointer dereference" for
# code in function `localfunc` (after inlining). Every test is a full -O2 compile.
f="${1:-input.i}"
o=$(/usr/bin/mktemp) || exit 1
out=$(LC_ALL=C /usr/bin/timeout 20 /usr/bin/gcc -x c -O2 -c -o "$o" -Wnull-dereference \
  -fno-diagnostics-color -Werror=implicit-function-declaration -Werror=implicit-int \
  -Werror=int-conversion -Werror=incompatible-pointer-types -Werror=return-type "$f" 2>&1)
rc=$?; /usr/bin/rm -f "$o"; [ $rc -eq 0 ] || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /In function / { fn = $0; sub(/.*In function .?/, "", fn); sub(/.[,:]$/, "", fn) }
  /warning: potential null pointer dereference \[-Wnull-dereference\]/ { if (fn == "localfunc") ok = 1 }
  END { exit !ok }'
