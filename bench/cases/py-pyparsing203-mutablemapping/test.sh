#!/bin/bash
# Interesting iff the module compiles and running it stops with the traceback's last line
# "AttributeError: module 'collections' has no attribute 'MutableMapping'" raised at module level
# (the innermost frame is `<module>`). Python 3.10 or later (Debian bookworm: 3.11).
f="${1:-input.py}"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -I -c 'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")' "$f" \
  > /dev/null 2>&1 || exit 1
err=$(timeout 10 "$py" -I "$f" 2>&1 > /dev/null < /dev/null)
[ "$(printf '%s\n' "$err" | tail -n 1)" = "AttributeError: module 'collections' has no attribute 'MutableMapping'" ] || exit 1
printf '%s\n' "$err" | grep '^  File ' | tail -n 1 | grep -q ', in <module>$'
