#!/bin/bash
# Produces input.ll: Lua 5.4's lstrlib.c (from the lua-src crate, fetched from the Rust crate
# registry) compiled to textual LLVM IR with clang -O0 (no grammar covers .ll: the bracket tree).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" lua-src 551.1.0)
clang -S -emit-llvm -O0 -Xclang -disable-O0-optnone -fno-discard-value-names \
  -I"$src/lua-5.4.9" "$src/lua-5.4.9/lstrlib.c" -o "$here/input.ll"
echo "$here/input.ll: $(wc -l < "$here/input.ll") lines, $(wc -c < "$here/input.ll") bytes"
