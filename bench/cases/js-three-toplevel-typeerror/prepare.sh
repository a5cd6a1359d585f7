#!/bin/bash
# Produces input.js: three.js r160's build/three.cjs (the whole library as one CommonJS module,
# 53,461 lines, 1.28 MB, every class and constant at the module's top level), fetched from the npm
# registry (`npm pack three@0.160.0`), with one statement put at top level before the first
# top-level declaration that starts at or after 60% of the lines (`class Bone`, line 32,301):
# `const _defaultBoneElements = Matrix4.prototype.elements.slice();` (`elements` is an instance
# field, so the prototype has none: a TypeError while the module loads).
# Nothing from the package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent three@0.160.0 > /dev/null)
tar -xzf "$tmp/three-0.160.0.tgz" -C "$tmp" package/build/three.cjs
src="$tmp/package/build/three.cjs"
grep -q "^const REVISION = '160';" "$src" || { echo "not three.js r160" >&2; exit 1; }
/usr/bin/awk -v n="$(wc -l < "$src")" '
  !done && NR >= 0.6 * n && prev == "" && /^(class|function|const|let|var) / {
    print "const _defaultBoneElements = Matrix4.prototype.elements.slice();"
    print ""
    done = 1
    print "inserted before line " NR " of " n ": " $0 > "/dev/stderr"
  }
  { print; prev = $0 }
  END { if (!done) exit 1 }' "$src" > "$here/input.js"
echo "$here/input.js: $(wc -l < "$here/input.js") lines, $(wc -c < "$here/input.js") bytes, sha256 $(sha256sum "$here/input.js" | cut -c1-16)"
