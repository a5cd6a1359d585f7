#!/bin/bash
# Produces input.cc: Protocol Buffers 27.1's src/google/protobuf/io/strtod.cc (as vendored, with
# the Abseil and utf8_range it builds against, by the Rust registry crate protobuf-src
# 2.1.1+27.1) preprocessed with `g++ -std=c++14 -E -P -DNDEBUG` (C++14 is what the crate's build
# script asks CMake for), so the file is self-contained C++ with libstdc++'s and Abseil's headers
# inlined (~50k lines, 1.8 MB). Run from the source tree with relative paths: nothing of this
# machine's paths ends up in the file. Deterministic for a given g++/libstdc++ (Debian bookworm:
# g++ 12.2.0). Nothing from the crate is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" protobuf-src 2.1.1+27.1)
cd "$src/protobuf"
LC_ALL=C /usr/bin/g++ -std=c++14 -E -P -DNDEBUG -Isrc -Ithird_party/abseil-cpp \
  -Ithird_party/utf8_range src/google/protobuf/io/strtod.cc > "$here/input.cc"
grep -q '^char \*FloatToBuffer(float value, char \*buffer) {$' "$here/input.cc" ||
  { echo "FloatToBuffer not found: not protobuf 27.1?" >&2; exit 1; }
echo "$here/input.cc: $(wc -l < "$here/input.cc") lines, $(wc -c < "$here/input.cc") bytes, sha256 $(sha256sum "$here/input.cc" | cut -c1-16)"
