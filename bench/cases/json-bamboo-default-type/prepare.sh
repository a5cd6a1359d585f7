#!/bin/bash
# Produces input.json: SchemaStore's JSON Schema for Bamboo Specs (bamboo-spec.json, 1,280 lines,
# draft-07), verbatim as vendored by check-jsonschema 0.39.0 (the PyPI wheel, fetched with
# `pip download`, not installed; the file is checked by its SHA-256). Nothing from the package is
# stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/bench-pypi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pip=(python3 -m pip); command -v pip3 > /dev/null && pip=(pip3)
"${pip[@]}" download --quiet --no-deps --only-binary :all: --dest "$tmp" check-jsonschema==0.39.0 >&2
member=check_jsonschema/builtin_schemas/vendor/bamboo-spec.json
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
  "$tmp"/check_jsonschema-0.39.0-py3-none-any.whl "$member" > "$tmp/bamboo-spec.json"
echo "03808ea111ee9ccda6ac0b3895ef97af090f74670e06330d8af5bb83fce3edf8  $tmp/bamboo-spec.json" |
  sha256sum -c --quiet -
cp "$tmp/bamboo-spec.json" "$here/input.json"
echo "$here/input.json: $(wc -l < "$here/input.json") lines, $(wc -c < "$here/input.json") bytes, sha256 $(sha256sum < "$here/input.json" | cut -c1-64)"
