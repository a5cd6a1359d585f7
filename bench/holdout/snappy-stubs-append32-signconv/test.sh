#!/bin/bash
# Interesting iff: g++ -std=c++14 accepts the file (-fsyntax-only, with return-type and narrowing
# problems as errors) AND -Wsign-conversion still reports "conversion to ... from 'long int' may
# change the sign of the result" inside a function whose name contains `Append32`.
f="${1:-input.cc}"
out=$(LC_ALL=C /usr/bin/timeout 20 /usr/bin/g++ -std=c++14 -x c++ -fsyntax-only -Wsign-conversion \
  -fno-diagnostics-color -Werror=return-type -Werror=narrowing "$f" 2>&1) || exit 1
printf '%s\n' "$out" | /usr/bin/awk '
  /In .*function |In instantiation of / { inside = (index($0, "Append32") > 0) }
  /warning: conversion to .* from .long int. may change the sign of the result \[-Wsign-conversion\]/ { if (inside) ok = 1 }
  END { exit !ok }'
