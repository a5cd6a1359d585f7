#!/bin/bash
# Produces input.go: Go 1.19's src/flag/flag.go (1,180 lines: package flag is this one file) from
# Debian's golang-1.19-src package (fetched with `apt-get download`, not installed; the file is
# checked by its SHA-256), with a short method appended whose failf call has its two arguments
# in the wrong order. Nothing from the package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-deb-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp" # apt-get download writes as the _apt user
(cd "$tmp" && { apt-get download -q golang-1.19-src=1.19.8-2 || apt-get download -q golang-1.19-src; }) >&2
dpkg-deb --fsys-tarfile "$tmp"/golang-1.19-src_*.deb | tar -x -C "$tmp" ./usr/share/go-1.19/src/flag/flag.go
src="$tmp/usr/share/go-1.19/src/flag/flag.go"
echo "a49a6d7d66be5bd94ddaf6895b0354bc983675277fa2a970c9b2ca6b50b12aae  $src" | sha256sum -c --quiet -
{
  cat "$src"
  cat <<'GO'

// checkRepeated is a contributor's new check: a flag given more than once on one command line.
// Its message has the arguments in the wrong order.
func (f *FlagSet) checkRepeated(name string, count int) error {
	if count > 1 {
		return f.failf("flag -%s given %d times", count, name)
	}
	return nil
}
GO
} > "$here/input.go"
echo "$here/input.go: $(wc -l < "$here/input.go") lines, $(wc -c < "$here/input.go") bytes, sha256 $(sha256sum < "$here/input.go" | cut -c1-64)"
