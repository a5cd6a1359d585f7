#!/bin/bash
# Interesting iff the IR is valid (opt verifies it) and after `opt -O2` the function str_rep
# still calls llvm.memcpy (stands in for "this pass pipeline still produces X in function F").
f="${1:-input.ll}"
out=$(timeout 20 opt -O2 -S "$f" -o - 2>/dev/null) || exit 1
printf '%s\n' "$out" | awk '
  /^define / { inside = ($0 ~ /@str_rep\(/) }
  /^}/ { inside = 0 }
  inside && /call void @llvm\.memcpy/ { ok = 1 }
  END { exit !ok }'
