#!/bin/bash
# Interesting iff g++ -std=c++14 accepts the file (-fsyntax-only, with return-type and narrowing
# problems as errors) AND -Wdouble-promotion still reports "implicit conversion from 'float' to
# 'double' to match other operand of binary expression" inside the function
# `char* google::protobuf::io::{anonymous}::FloatToBuffer(float, char*)` (exactly that signature).
f="${1:-input.cc}"
out=$(LC_ALL=C /usr/bin/timeout 30 /usr/bin/g++ -std=c++14 -x c++ -fsyntax-only -Wdouble-promotion \
  -fno-diagnostics-color -Werror=return-type -Werror=narrowing "$f" 2>&1) || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /: In .*function / { inside = (index($0, "In function '\''char* google::protobuf::io::{anonymous}::FloatToBuffer(float, char*)'\'':") > 0) }
  /warning: implicit conversion from '\''float'\'' to '\''double'\'' to match other operand of binary expression \[-Wdouble-promotion\]$/ { if (inside) ok = 1 }
  END { exit !ok }'
