#!/bin/bash
# Interesting iff `go vet` type-checks the file as a single-file package and reports exactly one
# diagnostic: the printf check's "failf format %s has arg count of wrong type int" on a method
# `failf` of `*FlagSet` (so failf must still forward its format and arguments to a fmt printf
# function: vet only names printf wrappers). Any type error, a second vet diagnostic, or a
# direct fmt call instead of the wrapper is uninteresting.
# Needs the Go toolchain: Debian's golang-go (Go 1.19; `apt-get install -y golang-go`). Runs
# offline (GO111MODULE=off, a private GOPATH). GOCACHE is shared by the runs of one reduction
# (under $TMPDIR): it keeps vet's facts about the standard library, so only the first run pays
# ~2 s for them and the later ones ~0.3 s; the candidate itself is vetted on every run (`go vet -x`
# shows the vet tool run each time, even for a file seen before).
f="${1:-input.go}"
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp "$f" "$d/input.go" || exit 1
out=$(cd "$d" && GO111MODULE=off GOPATH="$d/gopath" GOCACHE="${TMPDIR:-/tmp}/bench-go-vet-cache" \
  GOFLAGS= GOENV=off timeout 30 go vet input.go 2>&1 < /dev/null) && exit 1
[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] || exit 1
[ "$(printf '%s\n' "$out" | head -n 1)" = "# command-line-arguments" ] || exit 1
printf '%s\n' "$out" | tail -n 1 |
  grep -qE '^\./input\.go:[0-9]+:[0-9]+: \(\*command-line-arguments\.FlagSet\)\.failf format %s has arg count of wrong type int$'
