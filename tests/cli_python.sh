#!/usr/bin/env bash
# The Python package (python/, docs/python.md): its pytest suite run from the source tree over
# this build's shared libraries and tool (the cdef is generated from include/ on import, as the
# package build does). make test also installs the package into a venv and runs the suite there.
# In the AddressSanitizer build the sanitizer's runtime is preloaded into the interpreter, so the
# suite runs over the instrumented libraries too.
# Needs Debian's python3 with numpy, cffi and pytest (scripts/setup.sh --test).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
preload=() cli="$SK_BINARY_DIR/skelanim"
if [[ "${SK_CFLAGS:-}" == *sanitize* ]]; then
  # The libraries are instrumented (AddressSanitizer): the interpreter is not, so the sanitizer's
  # runtime is preloaded into it (leaks not checked: the interpreter keeps memory to its exit).
  # The tool is instrumented itself and must not get the preloaded runtime: a wrapper drops it.
  rt=$("${SK_CC:-clang}" -print-file-name=libclang_rt.asan-x86_64.so)
  [[ -f $rt ]] || sk_missing "the AddressSanitizer runtime libclang_rt.asan-x86_64.so (Debian: libclang-rt-14-dev)"
  preload=(LD_PRELOAD="$rt" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1)
  printf '#!/bin/sh\nunset LD_PRELOAD\nexec "%s" "$@"\n' "$cli" >"$tmp/skelanim" && chmod +x "$tmp/skelanim"
  cli="$tmp/skelanim"
fi
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3 || true)
[[ -n $py ]] || sk_missing "python3 is not installed (Debian: python3)"
"$py" -c 'import numpy, cffi, pytest, matplotlib' 2>/dev/null ||
  sk_missing "$py lacks numpy, cffi, pytest or matplotlib (Debian: python3-numpy python3-cffi python3-pytest python3-matplotlib)"
cd "$SK_BINARY_DIR"
env "${preload[@]}" SKELANIM_LIB_DIR="$SK_BINARY_DIR" SKELANIM_CLI="$cli" SKELANIM_SHARED="${SK_SHARED_DIR:-}" \
  PYTHONPATH="$SK_SOURCE_DIR/python" PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider "$SK_SOURCE_DIR/python/tests"
echo "cli_python: ok"
