#!/bin/bash
# Produces input.sh: the `n` Node.js version manager's bin/n from n 10.2.0 (a 1,753-line bash
# script), verbatim from the npm registry (`npm pack`, not installed; checked by its SHA-256).
# Nothing from the package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent n@10.2.0 > /dev/null)
tar -xzf "$tmp/n-10.2.0.tgz" -C "$tmp" package/bin/n
echo "e4f5baa2e912d3a39b50d9f617de03acf2b4eeb3590f0a4181123f8393da1a19  $tmp/package/bin/n" | sha256sum -c --quiet -
cp "$tmp/package/bin/n" "$here/input.sh"
echo "$here/input.sh: $(wc -l < "$here/input.sh") lines, $(wc -c < "$here/input.sh") bytes, sha256 $(sha256sum < "$here/input.sh" | cut -c1-64)"
