#!/bin/bash
# Produces input.js: lodash 4.17.21's lodash.js (17,209 lines, 544 KB, the full build as one UMD
# module), fetched from the npm registry (`npm pack lodash@4.17.21`), with one line put into
# baseMergeDeep (a helper nine calls below `_.merge`) that reads `customizer.length` although
# `_.merge` passes no customizer, and a short main that merges a config object: the TypeError is
# thrown deep inside lodash, from a call made by the main. Nothing from the package is stored in
# this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-npm-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent lodash@4.17.21 > /dev/null)
tar -xzf "$tmp/lodash-4.17.21.tgz" -C "$tmp" package/lodash.js
{
  /usr/bin/awk '
    /^    function baseMergeDeep\(object, source, key, srcIndex, mergeFunc, customizer, stack\) \{$/ { inside = 1 }
    inside && /^      var newValue = customizer$/ { print "      var customizerArity = customizer.length;"; inside = 0; n++ }
    { print }
    END { if (n != 1) { print "baseMergeDeep not found once" > "/dev/stderr"; exit 1 } }' \
    "$tmp/package/lodash.js"
  printf '\nvar _ = module.exports;\n'
  printf "var defaults = {server: {host: 'localhost', port: 8080}, log: {level: 'info'}};\n"
  printf 'var config = _.merge({}, defaults, {server: {port: 9090}});\n'
  printf 'console.log(config.server.host, config.server.port, config.log.level);\n'
} > "$here/input.js"
echo "$here/input.js: $(wc -l < "$here/input.js") lines, $(wc -c < "$here/input.js") bytes, sha256 $(sha256sum "$here/input.js" | cut -c1-16)"
