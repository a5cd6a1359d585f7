#!/bin/bash
# Produces input.cc: the C++ half of the Rust registry crate cxx 1.0.205 (src/cxx.cc with its
# include/cxx.h) preprocessed with `g++ -std=c++20 -E -P` (self-contained C++ with libstdc++'s
# headers inlined, ~55k lines, 1.9 MB), plus two lines put into its `operator<<(std::ostream&, const
# String&)`: a generic lambda whose requires-clause folds over lambdas that capture the parameter
# pack, which crashes g++ 12.2 while it parses (a segfault: "internal compiler error"). Run from
# the crate's folder with relative paths, so no path of this machine ends up in the file.
# Deterministic for a given g++/libstdc++ (Debian bookworm: g++ 12.2.0). Nothing from the crate
# is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" cxx 1.0.205)
cd "$src"
LC_ALL=C /usr/bin/g++ -std=c++20 -E -P -Iinclude src/cxx.cc |
  /usr/bin/awk '
    { print }
    /^std::ostream &operator<<\(std::ostream &os, const String &s\) \{$/ {
      print "  auto all_parts = [](auto... parts) requires(([parts] { return true; }(), ...)) { return sizeof...(parts); };"
      print "  (void)all_parts(s.data(), s.size());"
      n++
    }
    END { if (n != 1) { print "operator<<(std::ostream&, const String&) not found once" > "/dev/stderr"; exit 1 } }' \
  > "$here/input.cc"
echo "$here/input.cc: $(wc -l < "$here/input.cc") lines, $(wc -c < "$here/input.cc") bytes, sha256 $(sha256sum "$here/input.cc" | cut -c1-16)"
