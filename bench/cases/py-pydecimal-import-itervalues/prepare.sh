#!/bin/bash
# Produces input.py: CPython 3.11's _pydecimal.py (the pure-Python decimal module, 6,425 lines,
# 229 KB, from this machine's Debian package libpython3.11-stdlib) with a Python 2 leftover put
# into Context._set_signal_dict (61% of the way down): a check over `d.itervalues()`. The module
# builds its DefaultContext at import, so the import fails four calls deep: <module> ->
# Context.__init__ -> Context.__setattr__ -> Context._set_signal_dict.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3; [ -x "$py" ] || py=python3
src=$("$py" -I -c 'import _pydecimal; print(_pydecimal.__file__)')
/usr/bin/awk '
  /^    def _set_signal_dict\(self, name, d\):$/ { inside = 1 }
  inside && /^        return object.__setattr__\(self, name, d\)$/ {
    print "        if any(v not in (0, 1) for v in d.itervalues()):"
    print "            raise ValueError(\"%s values must be 0 or 1\" % name)"
    inside = 0; n++
  }
  { print }
  END { if (n != 1) { print "_set_signal_dict not found once" > "/dev/stderr"; exit 1 } }' \
  "$src" > "$here/input.py"
echo "$here/input.py: $(wc -l < "$here/input.py") lines, $(wc -c < "$here/input.py") bytes, sha256 $(sha256sum "$here/input.py" | cut -c1-16)"
