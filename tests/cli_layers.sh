#!/usr/bin/env bash
# The tree agrees with docs/architecture.md:
#  - every source and private header includes only its own layer and the
#    layers the table allows (public "skelanim/LAYER/..." and private
#    "LAYER/..." includes alike; core/internal.h is shared by every layer);
#  - every public header includes only headers of allowed layers;
#  - every public header include/skelanim/LAYER/NAME.h has its source
#    src/LAYER/NAME.c or src/LAYER/NAME_*.c, and every layer folder in src/
#    is a layer of the table;
#  - no library folder (src/, include/) nor any other source folder but
#    tests/, fuzz/ and cli/ (the tests and harnesses use cJSON as an oracle,
#    the tool for its own files) holds a cJSON include or uses a cJSON_
#    function or type: the libraries read JSON with src/io/json.c (prose
#    about cJSON in comments is fine).
set -euo pipefail
: "${SK_SOURCE_DIR:?}"
cd "$SK_SOURCE_DIR"
declare -A allow=(
  [core]="core"
  [anim]="core anim"
  [ik]="core ik"
  [skin]="core skin"
  [content]="core ik content"
  [locomotion]="core anim ik locomotion"
  [io]="core anim locomotion io"
  [batch]="core anim skin batch"
)
fail=0
checked=0
for dir in src/*/; do
  layer=$(basename "$dir")
  if [[ -z "${allow[$layer]+x}" ]]; then
    echo "src/$layer: not a layer of docs/architecture.md" >&2; fail=1; continue
  fi
  for f in "$dir"*.[ch] include/skelanim/"$layer"/*.h; do
    [[ -e "$f" ]] || continue
    checked=$((checked + 1))
    while IFS= read -r inc; do
      target=${inc#skelanim/}
      dep=${target%%/*}
      [[ "$inc" == core/internal.h ]] && continue
      [[ "$target" == */* ]] || continue           # same-folder include
      [[ -n "${allow[$dep]+x}" ]] || continue      # not a layer path (system or tool header)
      if [[ " ${allow[$layer]} " != *" $dep "* ]]; then
        echo "$f includes \"$inc\": layer $layer may use only: ${allow[$layer]}" >&2
        fail=1
      fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done
  for h in include/skelanim/"$layer"/*.h; do
    [[ -e "$h" ]] || continue
    name=$(basename "$h" .h)
    if ! compgen -G "src/$layer/$name.c" >/dev/null && ! compgen -G "src/$layer/${name}_*.c" >/dev/null; then
      echo "$h has no source src/$layer/$name.c or src/$layer/${name}_*.c" >&2; fail=1
    fi
  done
done
# cJSON: only tests/, fuzz/ and cli/ may use it (build trees are skipped)
uses_cjson='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*cjson|cJSON_[A-Za-z]|\bcJSON[[:space:]]*\*'
scanned=0
for top in */; do
  top=${top%/}
  case "$top" in tests | fuzz | cli) continue ;; esac
  [[ -e "$top/CMakeCache.txt" ]] && continue
  while IFS= read -r -d '' f; do
    scanned=$((scanned + 1))
    if grep -Eq "$uses_cjson" "$f"; then
      echo "$f uses cJSON: only tests/, fuzz/ and cli/ may" >&2; fail=1
    fi
  done < <(find "$top" -name '*.[ch]' -print0)
done
test "$scanned" -gt "$checked"   # src/, include/ and the other folders were read
# every public header is reachable from the umbrella header
for h in include/skelanim/*/*.h; do
  rel=${h#include/}
  grep -q "#include \"$rel\"" include/skelanim.h || { echo "include/skelanim.h does not include $rel" >&2; fail=1; }
done
test "$checked" -gt 40   # the tree was read
echo "layer rules: $checked files checked; cJSON: $scanned files outside tests/, fuzz/ and cli/ checked"
exit $fail
