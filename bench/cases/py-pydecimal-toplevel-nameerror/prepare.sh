#!/bin/bash
# Produces input.py: CPython 3.11's _pydecimal.py (the pure-Python decimal module, 6,425 lines,
# 229 KB, from this machine's Debian package libpython3.11-stdlib) with one line,
# `undefined_name_xyz.attr`, put at top level before the first top-level statement that starts at
# or after 60% of the file's lines (the issue-38 reproduction on the standard library).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3; [ -x "$py" ] || py=python3
src=$("$py" -I -c 'import _pydecimal; print(_pydecimal.__file__)')
"$py" -I - "$src" "$here/input.py" <<'PY'
import ast, sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.splitlines(keepends=True)
tree = ast.parse(text)
starts = sorted(min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])]) for s in tree.body)
at = next(n for n in starts if n >= 0.6 * len(lines))
# the comment right above the statement stays with it
while at > 1 and lines[at - 2].startswith("#"):
    at -= 1
out = lines[:at - 1] + ["undefined_name_xyz.attr\n", "\n"] + lines[at - 1:]
open(sys.argv[2], "w", encoding="utf-8").write("".join(out))
print("inserted before line %d of %d" % (at, len(lines)), file=sys.stderr)
PY
echo "$here/input.py: $(wc -l < "$here/input.py") lines, $(wc -c < "$here/input.py") bytes, sha256 $(sha256sum "$here/input.py" | cut -c1-16)"
