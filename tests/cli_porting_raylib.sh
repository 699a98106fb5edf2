#!/usr/bin/env bash
# docs/porting-raylib.md's program, examples/porting/from_raylib.c
# (raylib's load-model / load-animations / frame-counter loop, written with
# skelanim, CPU skinning every frame): the page shows the file as it is; it
# builds against the shared libraries; and the skinned vertices it prints
# are checked (tests/porting_check.py):
#   - on the mannequin (.glb), 4 vertices at 7 frames of the walk equal
#     `skelanim sample --time T --loop clamp --vertex NODE:0:V --json`
#     within 1e-4 m (28 values), every frame's time inside the clip;
#   - on CesiumMan (../shared), the 16 vertices three.js's oracle records, at
#     the frames whose time is one of its samples (the last frame, t = d,
#     against its clamped end sample): within its tolerances (112 values);
#   - an unknown animation, a vertex past the mesh and a missing file are
#     refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/porting_lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}" "${SK_CLI_REAL:?}"
sk_need_cmd "${SK_CC:-cc}" "the C compiler the tree was built with"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check=(python3 "$SK_SOURCE_DIR/tests/porting_check.py")
porting_build from_raylib porting-raylib.md
"$SK_CLI_REAL" export-mannequin "$tmp/m.glb" >/dev/null

"$tmp/from_raylib" "$tmp/m.glb" walk 0 100 1000 5000 > "$tmp/walk.txt"
"${check[@]}" raylib "$tmp/walk.txt" --cli "$SK_CLI_REAL" --file "$tmp/m.glb" --clips walk --min 28

porting_refuses "no animation" "$tmp/from_raylib" "$tmp/m.glb" nosuchclip
porting_refuses "vertices" "$tmp/from_raylib" "$tmp/m.glb" walk 100000000
porting_refuses "missing.glb" "$tmp/from_raylib" "$tmp/missing.glb"

if porting_cesium; then
  vertices=$(python3 -c 'import json, sys; print(" ".join(map(str, json.load(open(sys.argv[1]))["vertexSets"][0]["indices"])))' "$ORACLE")
  # shellcheck disable=SC2086  # the vertex indices are separate arguments
  "$tmp/from_raylib" "$CESIUM" 0 $vertices > "$tmp/cesium.txt"
  "${check[@]}" raylib "$tmp/cesium.txt" --cli "$SK_CLI_REAL" --file "$CESIUM" --oracle "$ORACLE" --min 112
fi
sk_done cli_porting_raylib
