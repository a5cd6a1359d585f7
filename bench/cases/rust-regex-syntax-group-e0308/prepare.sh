#!/bin/bash
# Produces input.rs: regex-syntax 0.8.5 (the regex crate's parser, fetched from the Rust crate
# registry) as one file: its module tree inlined by _lib/inline_mods.py (`mod x;` -> `mod x {..}`,
# the big unicode_tables/* data modules left out-of-line: without the unicode features their cfg
# is off), 24,580 lines, 866 KB, compiled as a library with `--cfg 'feature="std"'`. One edit deep
# in hir::translate's `Visitor::visit_post` (a method of an impl in a module in a module, 60% of the
# way down): the `Ast::Group` arm pops its saved flags with `unwrap_expr()` instead of
# `unwrap_group()`, so `self.trans().flags.set(old_flags)` gets a `Hir` where it wants `Flags`.
# Nothing from the crate is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" regex-syntax 0.8.5)
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" "$here/../_lib/inline_mods.py" "$src/src/lib.rs" unicode_tables |
  /usr/bin/awk '
    /^                let old_flags = self.pop\(\).unwrap\(\).unwrap_group\(\);$/ { sub(/unwrap_group/, "unwrap_expr"); n++ }
    { print }
    END { if (n != 1) { print "the Group arm of visit_post not found once" > "/dev/stderr"; exit 1 } }' \
  > "$here/input.rs"
echo "$here/input.rs: $(wc -l < "$here/input.rs") lines, $(wc -c < "$here/input.rs") bytes, sha256 $(sha256sum "$here/input.rs" | cut -c1-16)"
