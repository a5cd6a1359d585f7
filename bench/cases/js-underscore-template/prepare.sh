#!/bin/bash
# Produces input.js: underscore 1.13.7's underscore-umd.js (2,047 lines, the whole library as one
# UMD module), fetched from the npm registry, with a short main that compiles a template with
# _.template and renders it once with good data and once with `user: undefined`.
# Nothing from the package is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent underscore@1.13.7 > /dev/null)
tar -xzf "$tmp/underscore-1.13.7.tgz" -C "$tmp" package/underscore-umd.js
{
  cat "$tmp/package/underscore-umd.js"
  printf '\nvar _ = module.exports;\n'
  printf 'var greet = _.template("Hello <%%= user.name %%>! You have <%%- count %%> new messages.");\n'
  printf 'console.log(greet({user: {name: "Ada"}, count: 3}));\n'
  printf 'console.log(greet({user: undefined, count: 0}));\n'
} > "$here/input.js"
echo "$here/input.js: $(wc -l < "$here/input.js") lines, $(wc -c < "$here/input.js") bytes"
