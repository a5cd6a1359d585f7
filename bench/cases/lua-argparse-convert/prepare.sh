#!/bin/bash
# Produces input.lua: argparse 0.7.1's argparse.lua (2,100 lines, one self-contained module) from
# Debian's lua-argparse package (fetched with `apt-get download`, not installed), with its final
# `return argparse` replaced by a short command-line setup that passes a converter's name,
# "tonumber", where argparse wants a function or a table. Needs lua5.4 (apt-get install lua5.4).
# Nothing from the package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp" # apt-get download writes as the _apt user
(cd "$tmp" && { apt-get download -q lua-argparse=0.7.1-2 || apt-get download -q lua-argparse; }) >&2
dpkg-deb -x "$tmp"/lua-argparse_*.deb "$tmp/x"
src="$tmp/x/usr/share/lua/5.4/argparse.lua"
grep -q '^argparse.version = "0.7.1"$' "$src" || { echo "not argparse 0.7.1" >&2; exit 1; }
[ "$(tail -n 1 "$src")" = "return argparse" ] || { echo "unexpected end of argparse.lua" >&2; exit 1; }
{
  head -n -1 "$src"
  cat <<'LUA'
-- A command-line tool's setup: --level names its converter instead of passing it.
local parser = argparse("backup", "Back up a directory.")
parser:argument("dir", "Directory to back up.")
parser:option("-o --output", "Archive name.", "backup.tar")
parser:flag("-v --verbose", "Print each file.")
parser:option("-l --level", "Compression level."):convert("tonumber")
local args = parser:parse({"src", "-l", "9"})
print(args.dir, args.output, args.level)
LUA
} > "$here/input.lua"
echo "$here/input.lua: $(wc -l < "$here/input.lua") lines, $(wc -c < "$here/input.lua") bytes"
