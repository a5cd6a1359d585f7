#!/bin/bash
# Interesting iff g++ -std=c++20 accepts the file (-fsyntax-only, with return-type and narrowing
# problems as errors) AND -Wuseless-cast still reports "useless cast to type 'size_t' {aka 'long
# unsigned int'}" inside the function `size_t rocksdb::ParseSizeT(const std::string&)` (exactly
# that signature: the namespace and the std::string parameter stay).
f="${1:-input.ii}"
out=$(LC_ALL=C /usr/bin/timeout 30 /usr/bin/g++ -std=c++20 -x c++ -fsyntax-only -Wuseless-cast \
  -fno-diagnostics-color -Werror=return-type -Werror=narrowing "$f" 2>&1) || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /: In .*function / { inside = (index($0, "In function '\''size_t rocksdb::ParseSizeT(const std::string&)'\'':") > 0) }
  /warning: useless cast to type '\''size_t'\'' \{aka '\''long unsigned int'\''\} \[-Wuseless-cast\]$/ { if (inside) ok = 1 }
  END { exit !ok }'
