#!/bin/bash
# Installs the reducers that bench/bench.sh compares `reduce` with, on a Debian bookworm machine
# as root: C-Reduce and C-Vise from Debian's packages, Shrink Ray from PyPI into the venv
# /opt/shrinkray (Shrink Ray needs Python >= 3.12 and bookworm's python3 is 3.11, so the venv is
# made anew with the first Python >= 3.12 found: $PYTHON312, python3.12/python3.13 on PATH, or
# the oldest pyenv-built one >= 3.12 under ~/.pyenv/versions). A Python that uv or pyenv would download is not an
# option here: only the package registries are reachable.
#   bench/install-peers.sh [creduce] [cvise] [shrinkray]     (default: all three)
set -euo pipefail
want=${*:-creduce cvise shrinkray}
apt_pkgs=""
for t in $want; do case $t in creduce|cvise) apt_pkgs="$apt_pkgs $t" ;; esac; done
if [ -n "$apt_pkgs" ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $apt_pkgs
fi
case " $want " in *" shrinkray "*)
  py=""
  for c in "${PYTHON312:-}" "$(command -v python3.12 || true)" "$(command -v python3.13 || true)" \
           $(ls -d "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python 2>/dev/null | sort -V); do
    # (a pyenv shim is on PATH but fails when its version is not selected: skip it quietly)
    [ -n "$c" ] && [ -x "$c" ] && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null &&
      { py=$c; break; }
  done
  [ -n "$py" ] || { echo "no Python >= 3.12 found: set PYTHON312" >&2; exit 1; }
  "$py" -m venv --clear /opt/shrinkray
  /opt/shrinkray/bin/pip install -q --upgrade pip
  /opt/shrinkray/bin/pip install -q "shrinkray${SHRINKRAY_VERSION:+==$SHRINKRAY_VERSION}"
  ;;
esac
for t in $want; do
  case $t in
    creduce) echo "creduce: $(creduce --version 2>&1 | head -1)" ;;
    cvise) echo "cvise: $(cvise --version 2>&1 | head -1)" ;;
    shrinkray) echo "shrinkray: $(/opt/shrinkray/bin/shrinkray --version 2>&1 | head -1) ($(/opt/shrinkray/bin/python --version))" ;;
  esac
done
