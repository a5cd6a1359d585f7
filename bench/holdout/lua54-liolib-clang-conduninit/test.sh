#!/bin/bash
# Interesting iff: clang-14 accepts the file (clang -fsyntax-only, with the usual "no garbage"
# diagnostics turned into errors) AND -Wconditional-uninitialized reports "variable '...' may be
# uninitialized when used here" at a position inside the body of function `read_line`. clang
# does not name the enclosing function in diagnostics, so the same clang run dumps the AST of
# declarations named read_line (-ast-dump-filter, on stdout, merged with the diagnostics) and
# the warning's line:column must lie within the source range of a FunctionDecl named exactly
# read_line that has a body (a CompoundStmt child).
f="${1:-input.c}"
out=$(LC_ALL=C /usr/bin/timeout 10 /usr/bin/clang-14 -x c -fsyntax-only -Wconditional-uninitialized \
  -fno-color-diagnostics -Werror=implicit-function-declaration -Werror=implicit-int \
  -Werror=int-conversion -Werror=incompatible-pointer-types -Werror=return-type \
  -Xclang -ast-dump -Xclang -ast-dump-filter=read_line "$f" 2>&1) || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  function pos(l, c) { return l * 1000000 + c }
  /^FunctionDecl / {
    cur = 0
    if ($0 ~ / read_line \047/) {
      r = $0; sub(/^[^<]*</, "", r); sub(/>.*/, "", r); split(r, p, ", ")
      n = split(p[1], a, ":"); sl = a[n - 1] + 0; lo[++k] = pos(sl, a[n] + 0)
      n = split(p[2], b, ":")
      hi[k] = (b[1] == "line") ? pos(b[2] + 0, b[3] + 0) : pos(sl, b[2] + 0)
      cur = k
    }
    next
  }
  /^[|`]-CompoundStmt / { if (cur) body[cur] = 1; next }
  /^[^|` ].*:[0-9]+:[0-9]+: warning: variable .* may be uninitialized when used here \[-Wconditional-uninitialized\]$/ {
    n = split($0, w, ":"); at[++m] = pos(w[n - 3] + 0, w[n - 2] + 0); cur = 0; next
  }
  /^[^|` ]/ { cur = 0 }
  END {
    for (j = 1; j <= m; j++) for (i = 1; i <= k; i++)
      if (body[i] && at[j] >= lo[i] && at[j] <= hi[i]) ok = 1
    exit !ok
  }'
