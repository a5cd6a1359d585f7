#!/bin/bash
# Interesting iff: the file compiles (gcc -fsyntax-only, with the usual "no garbage"
# diagnostics turned into errors) AND gcc -Wconversion -Warith-conversion still reports
# "conversion to 'uInt' {aka 'unsigned int'} from 'int' may change the sign of the result"
# inside function 'deflateInit2_'.
f="${1:-input.c}"
out=$(LC_ALL=C /usr/bin/timeout 10 /usr/bin/gcc -x c -fsyntax-only -Wconversion -Warith-conversion \
  -fno-diagnostics-color -Werror=implicit-function-declaration -Werror=implicit-int \
  -Werror=int-conversion -Werror=incompatible-pointer-types -Werror=return-type "$f" 2>&1) || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /In function / { fn = $0; sub(/.*In function .?/, "", fn); sub(/.:$/, "", fn) }
  /warning: conversion to .uInt. \{aka .unsigned int.\} from .int. may change the sign of the result \[-Warith-conversion\]/ { if (fn == "deflateInit2_") ok = 1 }
  END { exit !ok }'
