#!/usr/bin/env bash
# What the libraries need (docs/architecture.md, "Optional parts"):
#  - each shared library's DT_NEEDED entries (readelf -d) are only the C
#    library, libm, zlib (libskelanim_io), the thread library
#    (libskelanim_batch) and libskelanim itself (the libraries above it), and
#    for libskelanim_import libassimp (the C++ runtime comes through assimp,
#    never directly: our sources are C);
#  - the generated pkg-config files require only skelanim (and zlib, privately,
#    for io; assimp, privately, for import);
#  - in the unsanitized build: a libraries-only configure and build
#    (-DSK_BUILD_TOOLS=OFF -DSK_BUILD_TESTS=OFF) succeeds with pkg-config able
#    to see zlib and nothing else (-DSK_IMPORT=OFF: the importer needs
#    assimp), and gives the four libraries; the same with CI=true and
#    SK_IMPORT=AUTO fails, naming assimp.
# Needs readelf, pkg-config and cmake: without them tests/lib.sh's rule applies.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd readelf "Debian: binutils"
sk_need_cmd pkg-config "Debian: pkg-config"
sk_need_cmd cmake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
sanitizer_re='^lib(asan|ubsan|tsan|lsan)\.so'

check_needed() { # check_needed LIB allowed-regex
  local so="$1/lib$2.so" allowed="$3" n=0 lib
  if [[ ! -f "$so" ]]; then echo "missing $so" >&2; fail=1; return; fi
  while read -r lib; do
    n=$((n + 1))
    if ! [[ "$lib" =~ $allowed || "$lib" =~ $sanitizer_re ]]; then
      echo "lib$2.so needs $lib (allowed: $allowed)" >&2; fail=1
    fi
  done < <(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  test "$n" -ge 1   # readelf read the file
  echo "lib$2.so: $n needed libraries, all allowed"
}
base='^lib(c|m)\.so\.[0-9]+$'
core='^lib(c|m)\.so\.[0-9]+$|^libskelanim\.so\.[0-9]+$'
check_all() {
  check_needed "$1" skelanim "$base"
  check_needed "$1" skelanim_offline "$core"
  check_needed "$1" skelanim_io "$core|^libz\.so\.[0-9]+$"
  check_needed "$1" skelanim_batch "$core|^libpthread\.so\.[0-9]+$"
}
check_all "$SK_BINARY_DIR"
pcs="skelanim skelanim_offline skelanim_io skelanim_batch"
if [[ "${SK_HAVE_IMPORT:-1}" == 1 ]]; then
  check_needed "$SK_BINARY_DIR" skelanim_import "$core|^libassimp\.so\.[0-9]+$"
  pcs="$pcs skelanim_import"
fi

# pkg-config: Requires and Requires.private of the generated files
export PKG_CONFIG_PATH="$SK_BINARY_DIR"
for pc in $pcs; do
  test -f "$SK_BINARY_DIR/$pc.pc"
  req=$(pkg-config --print-requires "$pc" | awk '{print $1}' | sort -u | tr '\n' ' ')
  priv=$(pkg-config --print-requires-private "$pc" | awk '{print $1}' | sort -u | tr '\n' ' ')
  case "$pc" in
    skelanim) want_req=""; want_priv="" ;;
    skelanim_io) want_req="skelanim "; want_priv="zlib " ;;
    skelanim_import) want_req="skelanim "; want_priv="assimp " ;;
    *) want_req="skelanim "; want_priv="" ;;
  esac
  if [[ "$req" != "$want_req" || "$priv" != "$want_priv" ]]; then
    echo "$pc.pc: Requires '$req' Requires.private '$priv' (want '$want_req' / '$want_priv')" >&2; fail=1
  fi
done
echo "pkg-config files ($pcs): skelanim needs nothing, the others skelanim (io: zlib privately, import: assimp privately)"

# a libraries-only build where pkg-config sees zlib alone
if [[ -z "${SK_CFLAGS:-}" ]]; then
  zdir=$(pkg-config --variable=pcfiledir zlib 2>/dev/null || true)
  if [[ -z "$zdir" || ! -f "$zdir/zlib.pc" ]]; then sk_missing "zlib's pkg-config file (Debian: zlib1g-dev)"; fi
  mkdir -p "$tmp/pc"
  cp "$zdir/zlib.pc" "$tmp/pc/"
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if ! PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH="" cmake -S "$SK_SOURCE_DIR" -B "$tmp/build" "${gen[@]}" \
       -DCMAKE_BUILD_TYPE=Release -DSK_BUILD_TOOLS=OFF -DSK_BUILD_TESTS=OFF -DSK_IMPORT=OFF -DCMAKE_C_COMPILER="${SK_CC:-cc}" \
       > "$tmp/configure.log" 2>&1; then
    cat "$tmp/configure.log" >&2; echo "libraries-only configure failed with only zlib visible" >&2; exit 1
  fi
  cmake --build "$tmp/build" -j "$(nproc)" > "$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log" >&2; exit 1; }
  for l in skelanim skelanim_offline skelanim_io skelanim_batch; do
    test -f "$tmp/build/lib$l.a" || { echo "libraries-only build: no lib$l.a" >&2; fail=1; }
  done
  if [[ -e "$tmp/build/skelanim" ]]; then echo "libraries-only build made the tool" >&2; fail=1; fi
  check_all "$tmp/build"
  echo "libraries-only build with pkg-config seeing only zlib: ok"
  # SK_IMPORT=AUTO under CI=true means ON: without assimp the configure fails, naming it.
  if CI=true PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH="" cmake -S "$SK_SOURCE_DIR" -B "$tmp/build-ci" "${gen[@]}" \
       -DSK_BUILD_TOOLS=OFF -DSK_BUILD_TESTS=OFF -DSK_IMPORT=AUTO -DCMAKE_C_COMPILER="${SK_CC:-cc}" \
       > "$tmp/configure-ci.log" 2>&1; then
    echo "CI=true with SK_IMPORT=AUTO configured without assimp" >&2; fail=1
  elif ! grep -q "assimp" "$tmp/configure-ci.log"; then
    cat "$tmp/configure-ci.log" >&2; echo "the CI configure failed without naming assimp" >&2; fail=1
  else
    echo "CI=true, SK_IMPORT=AUTO, no assimp: the configure fails naming assimp"
  fi
fi
exit $fail
