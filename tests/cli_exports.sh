#!/usr/bin/env bash
# The export boundary (docs/architecture.md, "The library boundary"):
#  - each shared library exports exactly the functions that the public headers
#    of its layers declare (clang's syntax tree of include/skelanim.h, read by
#    tests/public_api.py), no private helper and no other symbol;
#  - every declared function is exported by exactly one library;
#  - every declaration in include/ carries SK_API (a line-based check of the
#    headers, written apart from the syntax tree).
# (That a shared library calls nothing its dependencies keep hidden is checked
# when it is linked: -Wl,--no-undefined in CMakeLists.txt.)
# Needs clang, python3 and nm: without them tests/lib.sh's rule applies.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd clang "Debian: clang"
sk_need_cmd python3 "Debian: python3"
sk_need_cmd nm "Debian: binutils"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

clang -x c -std=c11 -I"$SK_SOURCE_DIR/include" -fsyntax-only -Xclang -ast-dump=json \
  "$SK_SOURCE_DIR/include/skelanim.h" | python3 "$SK_SOURCE_DIR/tests/public_api.py" > "$tmp/declared.txt"
n=$(wc -l < "$tmp/declared.txt")
test "$n" -gt 250   # the headers were read

# the library each layer's functions live in
lib_of() {
  case "$1" in
    io) echo skelanim_io ;;
    import) echo skelanim_import ;;
    offline) echo skelanim_offline ;;
    batch) echo skelanim_batch ;;
    *) echo skelanim ;;
  esac
}
fail=0
: > "$tmp/all_exported.txt"
libs="skelanim skelanim_offline skelanim_io skelanim_batch"
# libskelanim_import exists when the build has the importer (SK_IMPORT; under
# CI=true it always does): without it, its layer's functions are exported by none.
if [[ "${SK_HAVE_IMPORT:-1}" == 1 ]]; then libs="$libs skelanim_import"
else grep -v '^import ' "$tmp/declared.txt" > "$tmp/d" || true; mv "$tmp/d" "$tmp/declared.txt"; n=$(wc -l < "$tmp/declared.txt"); fi
for lib in $libs; do
  so="$SK_BINARY_DIR/lib$lib.so"
  if [[ ! -f "$so" ]]; then echo "missing $so" >&2; fail=1; continue; fi
  nm -D --defined-only "$so" | awk '{print $NF}' | sort -u > "$tmp/$lib.exported"
  while read -r layer name; do
    if [[ "$(lib_of "$layer")" == "$lib" ]]; then echo "$name"; fi
  done < "$tmp/declared.txt" | sort -u > "$tmp/$lib.declared"
  extra=$(comm -23 "$tmp/$lib.exported" "$tmp/$lib.declared")
  missing=$(comm -13 "$tmp/$lib.exported" "$tmp/$lib.declared")
  if [[ -n "$extra" ]]; then
    echo "lib$lib.so exports what no public header of its layers declares:" >&2; echo "$extra" | sed 's/^/  /' >&2; fail=1
  fi
  if [[ -n "$missing" ]]; then
    echo "lib$lib.so does not export these declared functions (SK_API missing, or not defined):" >&2
    echo "$missing" | sed 's/^/  /' >&2; fail=1
  fi
  cat "$tmp/$lib.exported" >> "$tmp/all_exported.txt"
  echo "lib$lib.so: $(wc -l < "$tmp/$lib.exported") symbols exported, $(wc -l < "$tmp/$lib.declared") declared"
done
dups=$(sort "$tmp/all_exported.txt" | uniq -d)
if [[ -n "$dups" ]]; then echo "exported by more than one library: $dups" >&2; fail=1; fi

# SK_API on every declaration: a function declaration at the start of a line
# (the headers' style: return type at column 1, "name(" before the first "(")
# that is not static must begin with SK_API.
bad=$(grep -nE '^[A-Za-z_][A-Za-z0-9_ \*]*[ \*]sk_[A-Za-z0-9_]+\(' "$SK_SOURCE_DIR"/include/skelanim/*/*.h \
      | grep -vE ':(SK_API |static |typedef |#)' || true)
if [[ -n "$bad" ]]; then echo "declarations without SK_API:" >&2; echo "$bad" >&2; fail=1; fi
marked=$(grep -hcE '^SK_API ' "$SK_SOURCE_DIR"/include/skelanim/*/*.h | awk '{s+=$1} END {print s}')
if [[ "${SK_HAVE_IMPORT:-1}" != 1 ]]; then
  marked=$((marked - $(grep -hcE '^SK_API ' "$SK_SOURCE_DIR"/include/skelanim/import/*.h | awk '{s+=$1} END {print s}')))
fi
if [[ "$marked" -ne "$n" ]]; then
  echo "$marked SK_API declarations in include/, $n functions in clang's tree" >&2; fail=1
fi

echo "public API: $n functions declared, all exported once: $([[ $fail == 0 ]] && echo ok || echo FAILED)"
exit $fail
