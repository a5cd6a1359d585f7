#!/usr/bin/env python3
"""Counts C tokens in a file: comments and whitespace do not count; identifiers, numbers,
string and char literals, and punctuators count one each (any other byte counts one)."""
import re
import sys

LEXER = re.compile(
    rb"""(?P<skip>\s+|\\\n|/\*.*?\*/|//[^\n]*)
       |(?P<tok>[LuU8]*"(?:\\.|[^"\\\n])*"?|[LuU]?'(?:\\.|[^'\\\n])*'?
          |\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*|[A-Za-z_$][A-Za-z0-9_$]*
          |\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|[<>=!+\-*/%&|^]=|&&|\|\||\#\#|.)""",
    re.S | re.X,
)

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    print(sum(1 for m in LEXER.finditer(data) if m.lastgroup == "tok"))
