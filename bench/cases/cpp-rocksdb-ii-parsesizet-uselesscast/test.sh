#!/bin/bash
# The test of cpp-rocksdb-parsesizet-uselesscast (the same warning in the same function), on
# this case's input.ii by default: g++ reads the line markers and reports the same diagnostics.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../cpp-rocksdb-parsesizet-uselesscast/test.sh" "${1:-input.ii}"
