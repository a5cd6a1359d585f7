#!/bin/bash
# Produces input.c: Lua 5.4.9's liolib.c (I/O library, vendored by the Rust registry crate
# lua-src 551.1.0), preprocessed with `clang-14 -E -P` (clang, not gcc: gcc-preprocessed glibc
# headers use _Float128 etc. that clang-14 rejects) so the file is self-contained.
# Deterministic for a given clang/glibc (Debian bookworm: clang 14.0.6, glibc 2.36).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" lua-src 551.1.0)
L="$src/lua-5.4.9"
LC_ALL=C /usr/bin/clang-14 -E -P -I"$L" "$L/liolib.c" > "$here/input.c"
echo "$here/input.c: $(wc -l < "$here/input.c") lines, $(wc -c < "$here/input.c") bytes, sha256 $(sha256sum "$here/input.c" | cut -c1-16)"
