#!/bin/bash
# Interesting iff rustc (edition 2021, as the library regex_syntax with the feature "std") reports
# exactly one error, and it is the failed compile-time assertion
# "error[E0080]: evaluation panicked: assertion failed: core::mem::size_of::<Hir>() <= 32".
f="${1:-input.rs}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
out=$(timeout 30 rustc --edition 2021 --crate-type lib --crate-name regex_syntax --emit=metadata \
  -o "$d/o" --cfg 'feature="std"' "$f" 2>&1) && exit 1
printf '%s\n' "$out" | grep -qx 'error: aborting due to 1 previous error' || exit 1
[ "$(printf '%s\n' "$out" | grep -E '^error(\[E[0-9]+\])?: ' | grep -vx 'error: aborting due to 1 previous error')" = \
  'error[E0080]: evaluation panicked: assertion failed: core::mem::size_of::<Hir>() <= 32' ]
