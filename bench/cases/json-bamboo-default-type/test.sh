#!/bin/bash
# Interesting iff the candidate is valid JSON without duplicate keys and schemalint.py (beside this
# script: a small draft-07 schema lint, Python standard library only) reports exactly one
# finding, the one the original has deep inside the Bamboo schema:
#   #/definitions/job/definitions/task/properties/checkout/properties/force-clean-build/default:
#   default false does not have type "string"
# A syntax error, a duplicate key, a crash of the lint, or any other finding (a $ref that no
# longer resolves, a `required` name whose property went, `"properties": 0`, ...) makes the
# candidate uninteresting. Needs only Debian's python3 (/usr/bin/python3, 3.11).
here=$(cd "$(dirname "$0")" && pwd)
f="${1:-input.json}"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
out=$(timeout 10 "$py" "$here/schemalint.py" "$f" 2> /dev/null < /dev/null)
[ $? = 1 ] || exit 1
[ "$out" = '#/definitions/job/definitions/task/properties/checkout/properties/force-clean-build/default: default false does not have type "string"' ]
