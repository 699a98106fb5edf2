#!/usr/bin/env bash
# The Python package (python/, docs/python.md): its pytest suite run from the source tree over
# this build's shared libraries and tool (the cdef is generated from include/ on import, as the
# package build does). make test also installs the package into a venv and runs the suite there.
# Needs Debian's python3 with numpy, cffi and pytest (scripts/setup.sh --test).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
if [[ "${SK_CFLAGS:-}" == *sanitize* ]]; then
  # An instrumented library cannot be loaded into an uninstrumented interpreter.
  echo "note: SKIPPED: not run in a sanitizer build (the gcc build and make test's venv step run it)"
  exit 77
fi
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3 || true)
[[ -n $py ]] || sk_missing "python3 is not installed (Debian: python3)"
"$py" -c 'import numpy, cffi, pytest, matplotlib' 2>/dev/null ||
  sk_missing "$py lacks numpy, cffi, pytest or matplotlib (Debian: python3-numpy python3-cffi python3-pytest python3-matplotlib)"
cd "$SK_BINARY_DIR"
SKELANIM_LIB_DIR="$SK_BINARY_DIR" SKELANIM_CLI="$SK_BINARY_DIR/skelanim" SKELANIM_SHARED="${SK_SHARED_DIR:-}" \
  PYTHONPATH="$SK_SOURCE_DIR/python" PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider "$SK_SOURCE_DIR/python/tests"
echo "cli_python: ok"
