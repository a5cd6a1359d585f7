#!/bin/bash
# Produces input.java: JPype1 1.5.0's org/jpype/html/Parser.java (304 lines: a generic
# table-driven parser, only JDK imports), taken verbatim from the project's source distribution
# on PyPI (`pip download`, checked by its SHA-256). Nothing from the package is stored in this
# repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-pypi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --no-binary :all: JPype1==1.5.0 -d "$tmp" >&2
echo "425a6e1966afdd5848b60c2688bcaeb7e40ba504a686f1114589668e0631e878  $tmp/JPype1-1.5.0.tar.gz" |
  sha256sum -c --quiet -
tar -xzf "$tmp/JPype1-1.5.0.tar.gz" -C "$tmp" JPype1-1.5.0/native/java/org/jpype/html/Parser.java
cp "$tmp/JPype1-1.5.0/native/java/org/jpype/html/Parser.java" "$here/input.java"
echo "$here/input.java: $(wc -l < "$here/input.java") lines, $(wc -c < "$here/input.java") bytes"
