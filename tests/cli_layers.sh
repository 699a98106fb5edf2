#!/usr/bin/env bash
# The tree agrees with docs/architecture.md:
#  - every source and private header includes only its own layer and the
#    layers the table allows (public "skelanim/LAYER/..." and private
#    "LAYER/..." includes alike; core/internal.h is shared by every layer);
#  - every public header includes only headers of allowed layers;
#  - every public header include/skelanim/LAYER/NAME.h has its source
#    src/LAYER/NAME.c or src/LAYER/NAME_*.c, and every layer folder in src/
#    is a layer of the table;
#  - private headers (src/LAYER/*.h) are included only by their own layer or
#    along a crossing sanctioned in docs/architecture.md; cli/ and render/ are
#    read too, and no include climbs out of its folder;
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
  [offline]="core offline"
  [anim]="core anim"
  [ik]="core ik"
  [skin]="core skin"
  [content]="core ik content"
  [world]="core world"
  [locomotion]="core anim ik world locomotion"
  [io]="core anim world locomotion io"
  [batch]="core anim skin batch"
  [import]="core import"
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
# Private headers (any "LAYER/NAME.h" that is a file of src/LAYER/) may be
# included only inside their own layer, or where docs/architecture.md
# sanctions the crossing: "including layer:private header" ("*": any layer).
sanctioned=(
  "*:core/internal.h" "*:core/math_inline.h"     # shared private helpers of every layer
  "io:anim/graph_internal.h"                     # the state machine's definition, for its JSON loader
  "offline:core/clip_internal.h"                 # the compressor writes the clip's private storage
  "anim:core/soa_kernels.h"                      # anim/soa_blend_kernels.h builds on core's SoA vector types, helpers and slerp series
  "cli:io/json_internal.h"                       # skelanim bench json times io's private JSON layer
)
is_sanctioned() {
  local e
  for e in "${sanctioned[@]}"; do
    [[ "$e" == "$1:$2" || "$e" == "*:$2" ]] && return 0
  done
  return 1
}
# Every quoted include of src/, cli/ and render/ is one of: a public header
# ("skelanim.h", "skelanim/LAYER/..."), a private header of a layer (rules
# above), or a header beside the including file (cli/ may also include
# render/skr.h, the renderer's public header); nothing else, and no "../".
crossings=0
for f in src/*/*.[ch] cli/*.[ch] render/*.[ch]; do
  dir=$(dirname "$f"); here=$(basename "$dir")
  while IFS= read -r inc; do
    checked=$((checked + 1))
    case "$inc" in
      skelanim.h|skelanim/*) continue ;;
      ../*|*/../*) echo "$f includes \"$inc\": no relative paths out of the folder" >&2; fail=1; continue ;;
    esac
    if [[ "$inc" == */* ]]; then
      dep=${inc%%/*}
      if [[ ! -f "src/$inc" ]]; then echo "$f includes \"$inc\": no such private header in src/" >&2; fail=1; continue; fi
      [[ "$dep" == "$here" ]] && continue
      crossings=$((crossings + 1))
      if ! is_sanctioned "$here" "$inc"; then
        echo "$f includes \"$inc\": a private header of $dep; only $dep may include it (or add the crossing to docs/architecture.md and this list)" >&2
        fail=1
      fi
    elif [[ ! -f "$dir/$inc" ]] && ! [[ "$here" == cli && -f "render/$inc" && "$inc" != *_internal.h ]]; then
      echo "$f includes \"$inc\": not a file beside it" >&2; fail=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
test "$crossings" -gt 10   # the crossings were seen
echo "private headers: $crossings crossings between layers, each sanctioned"
# the tool and renderer use no private header of the libraries beyond the list,
# and the libraries include nothing of the tool's
if grep -lE '#[[:space:]]*include[[:space:]]*"(cli|skr|render)' src/*/*.[ch] include/skelanim/*/*.h 2>/dev/null; then
  echo "the libraries include the tool's or the renderer's headers" >&2; fail=1
fi

# web/ (the browser viewer) includes the public headers, its own files and, of the
# renderer, only its camera (render/camera.c, compiled into the WebAssembly module),
# which includes no GL
web_checked=0
for f in web/*.[ch]; do
  [[ -e "$f" ]] || continue
  while IFS= read -r inc; do
    web_checked=$((web_checked + 1))
    case "$inc" in
      skelanim.h|skelanim/*|skr_camera.h) continue ;;
      */*) echo "$f includes \"$inc\": web/ may include the public headers, its own files and render/skr_camera.h" >&2; fail=1 ;;
      *) [[ -f "web/$inc" ]] || { echo "$f includes \"$inc\": not a file beside it (of render/, only skr_camera.h)" >&2; fail=1; } ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f" | grep -Ev '^(std|math|string|emscripten/|zlib)')
done
test "$web_checked" -gt 0
if grep -nE '#[[:space:]]*include[[:space:]]*[<"](epoxy|EGL|GL|GLES|SDL)' render/camera.c render/skr_camera.h; then
  echo "render/camera.c is compiled into the browser viewer: no GL" >&2; fail=1
fi

# every public header is reachable from the umbrella header
for h in include/skelanim/*/*.h; do
  rel=${h#include/}
  grep -q "#include \"$rel\"" include/skelanim.h || { echo "include/skelanim.h does not include $rel" >&2; fail=1; }
done
test "$checked" -gt 40   # the tree was read
echo "layer rules: $checked files checked; cJSON: $scanned files outside tests/, fuzz/ and cli/ checked"
exit $fail
