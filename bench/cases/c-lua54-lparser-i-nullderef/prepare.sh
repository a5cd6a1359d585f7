#!/bin/bash
# Produces input.i: Lua 5.4.9's lparser.c (the shared case lua54-lparser-O2-nullderef) preprocessed
# with `gcc -E` without -P, as `gcc -save-temps` leaves it: line markers say where each header's
# text starts and where lparser.c's resumes. Deterministic for a given gcc/glibc (Debian
# bookworm: gcc 12.2.0, glibc 2.36).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" lua-src 551.1.0)
cd "$src/lua-5.4.9"
LC_ALL=C /usr/bin/gcc -E -I. lparser.c > "$here/input.i"
echo "$here/input.i: $(wc -l < "$here/input.i") lines, $(grep -c '^# [0-9]' "$here/input.i") line markers, $(wc -c < "$here/input.i") bytes, sha256 $(sha256sum "$here/input.i" | cut -c1-16)"
