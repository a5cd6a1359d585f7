#!/bin/bash
# Interesting iff g++ -std=c++20 (-fsyntax-only) crashes with "internal compiler error:
# Segmentation fault" inside the function `std::ostream& rust::cxxbridge1::operator<<(std::ostream&,
# const String&)` (the last "In function" line before the crash names exactly that), and reports
# no error before the crash: the file must be valid C++ up to the point where g++ dies.
f="${1:-input.cc}"
out=$(LC_ALL=C /usr/bin/timeout 30 /usr/bin/g++ -std=c++20 -x c++ -fsyntax-only \
  -fno-diagnostics-color "$f" 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  / error: / && !/ internal compiler error: / { bad = 1 }
  /confused by earlier errors/ { bad = 1 }
  /: In .*function / { fn = $0; sub(/^[^:]*: /, "", fn) }
  / internal compiler error: Segmentation fault$/ {
    if (fn == "In function '\''std::ostream& rust::cxxbridge1::operator<<(std::ostream&, const String&)'\'':") ok = 1
  }
  END { exit !(ok && !bad) }'
