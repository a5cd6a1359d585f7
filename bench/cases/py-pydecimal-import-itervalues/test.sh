#!/bin/bash
# Interesting iff the module compiles and running it stops with the traceback's last line
# "AttributeError: 'dict' object has no attribute 'itervalues'" raised in a function named
# `_set_signal_dict` (the innermost frame) that module-level code called (the outermost frame is
# `<module>`, and there is at least one frame between: the failure is inside a call made at import).
f="${1:-input.py}"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -I -c 'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")' "$f" \
  > /dev/null 2>&1 || exit 1
err=$(timeout 10 "$py" -I "$f" 2>&1 > /dev/null < /dev/null)
[ "$(printf '%s\n' "$err" | tail -n 1)" = "AttributeError: 'dict' object has no attribute 'itervalues'" ] || exit 1
frames=$(printf '%s\n' "$err" | grep '^  File ')
printf '%s\n' "$frames" | head -n 1 | grep -q ', in <module>$' || exit 1
printf '%s\n' "$frames" | tail -n 1 | grep -q ', in _set_signal_dict$' || exit 1
[ "$(printf '%s\n' "$frames" | wc -l)" -ge 3 ]
