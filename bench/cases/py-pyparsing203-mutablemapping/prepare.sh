#!/bin/bash
# Produces input.py: pyparsing 2.0.3's pyparsing.py (3,764 lines, 158 KB, CRLF line endings, as
# released), taken from its wheel on PyPI (`pip download --no-deps --only-binary :all:`). On
# Python 3.10 and later its import stops at module level, line 699:
# `collections.MutableMapping.register(ParseResults)`. Nothing from the package is stored in this
# repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-pypi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -m pip download -q --no-deps --only-binary :all: --python-version 3 --no-cache-dir \
  -d "$tmp" pyparsing==2.0.3 >&2
"$py" - "$tmp"/pyparsing-2.0.3-py2.py3-none-any.whl "$here/input.py" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("pyparsing.py")
open(sys.argv[2], "wb").write(data)
PY
grep -q '^__version__ = "2.0.3"' "$here/input.py" || { echo "not pyparsing 2.0.3" >&2; exit 1; }
echo "$here/input.py: $(wc -l < "$here/input.py") lines, $(wc -c < "$here/input.py") bytes, sha256 $(sha256sum "$here/input.py" | cut -c1-16)"
