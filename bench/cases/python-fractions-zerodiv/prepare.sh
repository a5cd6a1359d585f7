#!/bin/bash
# Produces input.py: CPython 3.11's fractions.py (the system's /usr/lib/python3.11, 756 lines)
# with a short main that ends in Fraction(1, 0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(/usr/bin/python3 -c 'import fractions; print(fractions.__file__)')
{
  cat "$src"
  printf '\n\nif __name__ == "__main__":\n'
  printf '    print(Fraction(3, 4) + Fraction(1, 4), Fraction("1.25").limit_denominator(3))\n'
  printf '    print(Fraction(7, 3) // 2, round(Fraction(22, 7), 2))\n'
  printf '    print(Fraction(1, 0))\n'
} > "$here/input.py"
echo "$here/input.py: $(wc -l < "$here/input.py") lines, $(wc -c < "$here/input.py") bytes"
