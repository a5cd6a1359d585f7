#!/bin/bash
# Produces input.c: Lua 5.4.9's lgc.c (the garbage collector, as vendored by the Rust registry
# crate lua-src 551.1.0), preprocessed with `gcc -E -P` so the file is self-contained.
# Deterministic for a given gcc/glibc (Debian bookworm: gcc 12.2.0, glibc 2.36).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" lua-src 551.1.0)
L="$src/lua-5.4.9"
LC_ALL=C /usr/bin/gcc -E -P -I"$L" "$L/lgc.c" > "$here/input.c"
echo "$here/input.c: $(wc -l < "$here/input.c") lines, $(wc -c < "$here/input.c") bytes, sha256 $(sha256sum "$here/input.c" | cut -c1-16)"
