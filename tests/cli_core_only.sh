#!/usr/bin/env bash
# The runtime library needs nothing but libm: a program using sampling,
# blending, IK, poses and skinning links against libskelanim.a alone (no
# cJSON, no libskelanim_io) and runs; and no object of libskelanim.a refers
# to cJSON or to a stdio/POSIX file function.
# Needs a C compiler (SK_CC) and nm: without them tests/lib.sh's rule applies
# (a failure under CI, else skipped with a note).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd "${SK_CC:-cc}" "the C compiler the tree was built with"
sk_need_cmd nm "Debian: binutils"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$SK_BINARY_DIR/libskelanim.a"
test -f "$lib"
"${SK_CC:-cc}" ${SK_CFLAGS:-} -std=c11 -Wall -Wextra -Werror -I"$SK_SOURCE_DIR/include" \
  "$SK_SOURCE_DIR/examples/core_only.c" -o "$tmp/core_only" "$lib" -lm
"$tmp/core_only" > "$tmp/out.txt"
grep -q "skinned 6746 vertices" "$tmp/out.txt"
echo "examples/core_only.c linked against libskelanim.a alone: ok"

nm -u "$lib" | awk '{print $2}' | sort -u > "$tmp/undef.txt"
n=$(wc -l < "$tmp/undef.txt")
test "$n" -gt 5   # the archive was read
bad=$(grep -E '^(cJSON_.*|pthread_.*|thrd_.*|mtx_.*|cnd_.*|fopen|fopen64|fdopen|freopen|fread|fwrite|fclose|fseek|fseeko|ftell|ftello|fgets|fputs|fputc|fprintf|printf|puts|putchar|perror|open|open64|openat|read|write|close|stat|stat64|fstat|fstat64|opendir|readdir|stdin|stdout|stderr|remove|rename|tmpfile)$' "$tmp/undef.txt" || true)
if [[ -n "$bad" ]]; then
  echo "libskelanim.a refers to: $bad" >&2
  exit 1
fi
echo "libskelanim.a: $n undefined symbols, none of them cJSON, file I/O or threads: ok"
