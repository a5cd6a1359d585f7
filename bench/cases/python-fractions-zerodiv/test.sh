#!/bin/bash
# Interesting iff running the module still ends in "ZeroDivisionError: Fraction(1, 0)" raised
# inside a __new__ method (so a bare `raise` does not count).
f="${1:-input.py}"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
err=$(timeout 10 "$py" "$f" 2>&1 >/dev/null)
printf '%s\n' "$err" | tail -n 1 | grep -qx 'ZeroDivisionError: Fraction(1, 0)' || exit 1
printf '%s\n' "$err" | grep -q 'in __new__'
