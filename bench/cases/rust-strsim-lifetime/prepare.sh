#!/bin/bash
# Produces input.rs: strsim 0.11.1's src/lib.rs (1,307 lines, one file, no modules), fetched from
# the Rust crate registry. Nothing from the crate is stored in this repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$("$here/../_lib/fetch_crate.sh" strsim 0.11.1)
cp "$src/src/lib.rs" "$here/input.rs"
echo "$here/input.rs: $(wc -l < "$here/input.rs") lines, $(wc -c < "$here/input.rs") bytes"
