#!/bin/bash
# Interesting iff the TypeScript compiler, with --strict and --noUncheckedIndexedAccess, finds no
# error but TS2532 "Object is possibly 'undefined'." and reports one of those at an expression
# that starts with `modelEffects[` (signals-core's createModel disposes the effects of a model
# with `modelEffects[i].dispose()`, and an indexed read may be undefined under that flag). Any
# other diagnostic (a syntax error, an unknown name, a type mismatch, `'modelEffects' is possibly
# 'undefined'` once its guard goes) makes the candidate uninteresting.
# Needs node and typescript 5.9.3 installed from npm into .tsc/ beside this script (prepare.sh
# does it: `npm install --prefix .tsc typescript@5.9.3`). The standard library is the small
# lib.d.ts beside this script (--noLib): the real lib files cost ~0.4 s a run to parse and bind.
here=$(cd "$(dirname "$0")" && pwd)
f="${1:-input.ts}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/input.ts" && cp "$here/lib.d.ts" "$d/lib.d.ts" || exit 1
out=$(cd "$d" && timeout 30 node "$here/.tsc/node_modules/typescript/lib/tsc.js" --noEmit --pretty false \
  --strict --noUncheckedIndexedAccess --target es2022 --noLib --skipLibCheck lib.d.ts input.ts 2>&1 < /dev/null) && exit 1
printf '%s\n' "$out" | grep -qvE "^input\.ts\([0-9]+,[0-9]+\): error TS2532: Object is possibly 'undefined'\.$" && exit 1
printf '%s\n' "$out" | sed -E 's/^input\.ts\(([0-9]+),([0-9]+)\).*/\1 \2/' |
  awk 'FNR == NR { want[$1] = want[$1] " " $2; next }
       FNR in want { n = split(want[FNR], cols, " "); for (i = 1; i <= n; i++) if (index(substr($0, cols[i]), "modelEffects[") == 1) found = 1 }
       END { exit !found }' - "$d/input.ts"
