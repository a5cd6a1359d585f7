#!/bin/bash
# Interesting iff the module compiles and running it stops with the traceback's last line
# "NameError: name 'undefined_name_xyz' is not defined" raised at module level (the innermost
# frame is `<module>`).
f="${1:-input.py}"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -I -c 'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")' "$f" \
  > /dev/null 2>&1 || exit 1
err=$(timeout 10 "$py" -I "$f" 2>&1 > /dev/null < /dev/null)
[ "$(printf '%s\n' "$err" | tail -n 1)" = "NameError: name 'undefined_name_xyz' is not defined" ] || exit 1
printf '%s\n' "$err" | grep '^  File ' | tail -n 1 | grep -q ', in <module>$'
