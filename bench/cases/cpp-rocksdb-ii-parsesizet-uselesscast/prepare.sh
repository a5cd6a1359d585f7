#!/bin/bash
# Produces input.ii: the same RocksDB 11.8.1 util/string_util.cc as cpp-rocksdb-parsesizet-uselesscast,
# preprocessed as `g++ -save-temps` (or a GCC bug report's .ii file) leaves it: `g++ -E` without
# -P, so the line markers (`# 42 "/usr/include/c++/12/string" 1 3`) say where each header's text
# starts and where its includer's resumes. The header paths are this machine's (Debian bookworm:
# g++ 12.2.0); the crate's own paths are relative. Nothing from the crate is stored here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" librocksdb-sys 0.19.0+11.8.1)
cd "$src/rocksdb"
LC_ALL=C /usr/bin/g++ -std=c++20 -E -include cstdint \
  -DOS_LINUX -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DROCKSDB_SCHED_GETCPU_PRESENT \
  -DROCKSDB_AUXV_GETAUXVAL_PRESENT -DNDEBUG=1 -DHAVE_ALIGNED_NEW -DHAVE_UINT128_EXTENSION \
  -I. -Iinclude util/string_util.cc > "$here/input.ii"
grep -q '^size_t ParseSizeT(const std::string& value) {$' "$here/input.ii" ||
  { echo "ParseSizeT not found: not RocksDB 11.8.1?" >&2; exit 1; }
echo "$here/input.ii: $(wc -l < "$here/input.ii") lines, $(grep -c '^# [0-9]' "$here/input.ii") line markers, $(wc -c < "$here/input.ii") bytes, sha256 $(sha256sum "$here/input.ii" | cut -c1-16)"
