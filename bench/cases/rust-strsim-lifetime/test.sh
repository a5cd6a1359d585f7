#!/bin/bash
# Interesting iff rustc (edition 2021, as a library) accepts the file and the allow-by-default
# lint single_use_lifetimes still fires on an `IntoIterator` impl for a reference. The crate name is
# given: treereduce hands the test a temp file whose name is no crate name (`.tmpXXXX`).
f="${1:-input.rs}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
out=$(rustc --edition 2021 --crate-type lib --crate-name input --emit=metadata -o "$d/o" -W single_use_lifetimes \
  "$f" 2>&1) || exit 1
printf '%s\n' "$out" | grep -q "lifetime parameter \`'a\` only used once" || exit 1
printf '%s\n' "$out" | grep -q "IntoIterator for &'a"
