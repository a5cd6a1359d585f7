#!/bin/bash
# Produces input.cc: RocksDB 11.8.1's util/string_util.cc (as vendored by the Rust registry crate
# librocksdb-sys 0.19.0+11.8.1) preprocessed with `g++ -std=c++20 -E -P` and the defines the
# crate's build script gives on x86_64 Linux, so the file is self-contained C++ with libstdc++'s
# headers inlined (~61k lines, 2.2 MB). Run from the source tree with relative paths: nothing of
# this machine's paths ends up in the file. Deterministic for a given g++/libstdc++ (Debian
# bookworm: g++ 12.2.0). Nothing from the crate is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" librocksdb-sys 0.19.0+11.8.1)
cd "$src/rocksdb"
LC_ALL=C /usr/bin/g++ -std=c++20 -E -P -include cstdint \
  -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_SCHED_GETCPU_PRESENT \
  -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DNDEBUG=1 -DHAVE_ALIGNED_NEW -DHAVE_UINT128_EXTENSION \
  -I. -Iinclude util/string_util.cc > "$here/input.cc"
grep -q '^size_t ParseSizeT(const std::string& value) {$' "$here/input.cc" ||
  { echo "ParseSizeT not found: not RocksDB 11.8.1?" >&2; exit 1; }
echo "$here/input.cc: $(wc -l < "$here/input.cc") lines, $(wc -c < "$here/input.cc") bytes, sha256 $(sha256sum "$here/input.cc" | cut -c1-16)"
