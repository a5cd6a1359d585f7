#!/bin/bash
# Produces input.ts: @preact/signals-core 1.14.5's src/index.ts (1,173 lines, the whole library in
# one file, no imports), verbatim from the npm registry (`npm pack`, checked by its SHA-256), and
# installs the TypeScript compiler the test runs (typescript 5.9.3 from npm) into .tsc/ beside
# this script. Nothing from either package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tsc_version=5.9.3
if [ "$(node -p 'require(process.argv[1]).version' "$here/.tsc/node_modules/typescript/package.json" 2>/dev/null)" != "$tsc_version" ]; then
  npm install --silent --no-audit --no-fund --no-save --prefix "$here/.tsc" "typescript@$tsc_version" >&2
fi
tmp=$(mktemp -d /tmp/bench-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @preact/signals-core@1.14.5 > /dev/null)
tar -xzf "$tmp/preact-signals-core-1.14.5.tgz" -C "$tmp" package/src/index.ts
echo "7ea4c4b5432034844d25a2f74e984d40e5de5c47ff6ea99ee4b029e9dae27286  $tmp/package/src/index.ts" |
  sha256sum -c --quiet -
cp "$tmp/package/src/index.ts" "$here/input.ts"
echo "$here/input.ts: $(wc -l < "$here/input.ts") lines, $(wc -c < "$here/input.ts") bytes, sha256 $(sha256sum < "$here/input.ts" | cut -c1-64)"
