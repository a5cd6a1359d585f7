#!/bin/bash
# Produces input.rs: regex-syntax 0.8.5 (the regex crate's parser, fetched from the Rust crate
# registry) as one file: its module tree inlined by _lib/inline_mods.py (`mod x;` -> `mod x {..}`,
# the big unicode_tables/* data modules left out-of-line: without the unicode features their cfg
# is off), 24,580 lines, 866 KB, compiled as a library with `--cfg 'feature="std"'`. One item put
# at module level (in hir::translate) before the first item that starts at or after 60% of the
# lines (`impl<'t, 'p> TranslatorI<'t, 'p>`): a compile-time size check, `const _: () =
# assert!(core::mem::size_of::<Hir>() <= 32);`, that fails (a Hir is 48 bytes on 64-bit targets).
# Nothing from the crate is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" regex-syntax 0.8.5)
py=/usr/bin/python3; [ -x "$py" ] || py=python3
tmp=$(mktemp /tmp/bench-rs-XXXXXX.rs); trap 'rm -f "$tmp"' EXIT
"$py" "$here/../_lib/inline_mods.py" "$src/src/lib.rs" unicode_tables > "$tmp"
/usr/bin/awk -v n="$(wc -l < "$tmp")" '
  !done && NR >= 0.6 * n && prev == "" && /^[a-z#]/ {
    print "const _: () = assert!(core::mem::size_of::<Hir>() <= 32);"
    print ""
    done = 1
    print "inserted before line " NR " of " n ": " $0 > "/dev/stderr"
  }
  { print; prev = $0 }
  END { if (!done) exit 1 }' "$tmp" > "$here/input.rs"
echo "$here/input.rs: $(wc -l < "$here/input.rs") lines, $(wc -c < "$here/input.rs") bytes, sha256 $(sha256sum "$here/input.rs" | cut -c1-16)"
