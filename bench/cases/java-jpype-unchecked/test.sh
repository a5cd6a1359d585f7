#!/bin/bash
# Interesting iff javac accepts the file (compiled alone as Parser.java, so that a public class
# Parser may stay) and -Xlint:all reports "[unchecked] unchecked conversion" on a line that lies
# in the body of a method named `apply` (JPype's MatchRule.apply assigns the field of a raw
# `Parser` to a `LinkedList<Entity>`). javac names no method, so a small scan of the file (comments
# and literals blanked) finds the method whose braces enclose the warning's line. javac stops
# after flow analysis (no class files) and runs with C1 only, which halves its ~1 s start.
f="${1:-input.java}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/Parser.java" || exit 1
out=$(cd "$d" && timeout 30 javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -J-XX:-UsePerfData \
  -J-Duser.language=en -proc:none -implicit:none -XDshould-stop.ifNoError=FLOW -Xlint:all \
  -d "$d/classes" Parser.java 2>&1 < /dev/null) || exit 1
lines=$(printf '%s\n' "$out" |
  sed -n 's/^Parser\.java:\([0-9]*\): warning: \[unchecked\] unchecked conversion$/\1/p')
[ -n "$lines" ] || exit 1
py=/usr/bin/python3; [ -x "$py" ] || py=python3
# shellcheck disable=SC2086
"$py" - "$d/Parser.java" $lines <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
want = {int(n) for n in sys.argv[2:]}
blank = lambda m: re.sub(r"[^\n]", " ", m.group())
text = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text, flags=re.S)
control = {"if", "for", "while", "switch", "catch", "synchronized", "try", "new", "return"}
line, stack, depth, opener, head, prev = 1, [], 0, None, None, None
for tok in re.findall(r"[A-Za-z_$][\w$]*|\n|\S", text):
    if tok == "\n":
        line += 1
        continue
    named = [name for name in stack if name]
    if line in want and named and named[-1] == "apply":
        sys.exit(0)
    if tok == "(":
        if depth == 0:
            opener = prev if prev and re.match(r"[A-Za-z_$]", prev) and prev not in control else None
        depth += 1
    elif tok == ")":
        depth = max(depth - 1, 0)
        if depth == 0:
            head = opener
    elif tok == "{":
        stack.append(head if depth == 0 else None)
        head = None
    elif tok == "}":
        if stack:
            stack.pop()
        head = None
    elif depth == 0 and not (re.match(r"[\w$]", tok) or tok in ".,<>[]"):
        head = None
    prev = tok
sys.exit(1)
PY
