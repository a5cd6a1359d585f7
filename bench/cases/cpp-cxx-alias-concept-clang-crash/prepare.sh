#!/bin/bash
# Produces input.cc: the C++ half of the Rust registry crate cxx 1.0.205 (src/cxx.cc with its
# include/cxx.h) preprocessed with `clang++ -std=c++20 -E -P` (self-contained C++ with libstdc++'s
# headers inlined, ~55k lines, 1.9 MB), plus two lines put at namespace scope in front of its
# `operator<<(std::ostream&, const String&)`: a concept and an alias template whose template
# template parameter is constrained by it (LLVM issue 57410), which crashes clang 14 while it
# parses the alias (a segfault in constraint checking, exit 139). Run from the crate's folder
# with relative paths, so no path of this machine ends up in the file. Deterministic for a given
# clang/libstdc++ (Debian bookworm: clang 14.0.6, libstdc++ 12). Nothing from the crate is
# stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" cxx 1.0.205)
cd "$src"
LC_ALL=C /usr/bin/clang++ -std=c++20 -E -P -Iinclude src/cxx.cc |
  /usr/bin/awk '
    /^std::ostream &operator<<\(std::ostream &os, const String &s\) \{$/ {
      print "template <typename Part> concept AnyPart = true;"
      print "template <template <AnyPart P> typename Holder> using HoldingParts = Holder<long>;"
      n++
    }
    { print }
    END { if (n != 1) { print "operator<<(std::ostream&, const String&) not found once" > "/dev/stderr"; exit 1 } }' \
  > "$here/input.cc"
echo "$here/input.cc: $(wc -l < "$here/input.cc") lines, $(wc -c < "$here/input.cc") bytes, sha256 $(sha256sum "$here/input.cc" | cut -c1-16)"
