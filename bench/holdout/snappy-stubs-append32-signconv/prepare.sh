#!/bin/bash
# Produces input.cc: snappy 1.1.10's snappy-stubs-internal.cc (as vendored by the Rust registry
# crate snappy_src 0.2.7+snappy.1.3.1), its generated public stubs header filled in the way the
# crate's build script does, preprocessed with `g++ -std=c++14 -E -P` so the file is
# self-contained C++ with libstdc++'s headers (<string>, <memory>, <atomic>, <limits>, ...)
# inlined (~19k lines, 635 KB). Deterministic for a given g++/libstdc++ (Debian bookworm: g++ 12.2.0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" snappy_src 0.2.7+snappy.1.3.1)
inc=$(mktemp -d); trap 'rm -rf "$inc"' EXIT
sed -e 's/${HAVE_SYS_UIO_H_01}/1/; s/${PROJECT_VERSION_MAJOR}/1/' \
    -e 's/${PROJECT_VERSION_MINOR}/1/; s/${PROJECT_VERSION_PATCH}/10/' \
    "$src/snappy/snappy-stubs-public.h.in" > "$inc/snappy-stubs-public.h"
LC_ALL=C /usr/bin/g++ -std=c++14 -E -P -I"$src/snappy" -I"$inc" "$src/snappy/snappy-stubs-internal.cc" > "$here/input.cc"
echo "$here/input.cc: $(wc -l < "$here/input.cc") lines, $(wc -c < "$here/input.cc") bytes, sha256 $(sha256sum "$here/input.cc" | cut -c1-16)"
