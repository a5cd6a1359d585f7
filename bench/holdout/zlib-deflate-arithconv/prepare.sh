#!/bin/bash
# Produces input.c: zlib's deflate.c (as vendored by the Rust registry crate libz-sys 1.1.33),
# preprocessed with `gcc -E -P` so the file is self-contained. Deterministic for a given
# gcc/glibc (Debian bookworm: gcc 12.2.0, glibc 2.36).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" libz-sys 1.1.33 '"static"')
z="$src/src/zlib"
LC_ALL=C /usr/bin/gcc -E -P -I"$z" "$z/deflate.c" > "$here/input.c"
echo "$here/input.c: $(wc -l < "$here/input.c") lines, $(wc -c < "$here/input.c") bytes, sha256 $(sha256sum "$here/input.c" | cut -c1-16)"
