#!/usr/bin/env bash
# docs/porting-threejs.md's program, examples/porting/from_threejs.c (an
# AnimationMixer with two actions and a crossfade, written with skelanim):
# the page shows the file as it is; it builds against the shared libraries;
# and what it prints is checked (tests/porting_check.py) on the mannequin:
#   - every frame (180 per run), the closed form of a linear crossfade that
#     starts on the first update beginning at or after FADE_AT:
#     w_b = clamp((t - t_start) / FADE_SECONDS, 0, 1), w_a = 1 - w_b, both
#     actions' times t mod their clip's duration, mixer time = frame / 60;
#   - every 10th frame, each joint's position equals the two clips' sampled
#     local transforms (`skelanim sample --json`) blended by slerp with those
#     weights (three.js's PropertyMixer) and carried through the .glb's
#     hierarchy in Python, within 1e-4 m;
#   three fades: walk->run at 1 s over 0.5 s, idle->walk at 0.25 s over 1.5 s,
#   walk->run cut at 0.5 s (0 s fade); 936 values each;
# on CesiumMan (../shared): two actions of its one clip, positions within
# three.js's oracle (160 values); bad fade times and clips are refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/porting_lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}" "${SK_CLI_REAL:?}"
sk_need_cmd "${SK_CC:-cc}" "the C compiler the tree was built with"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check=(python3 "$SK_SOURCE_DIR/tests/porting_check.py")
porting_build from_threejs porting-threejs.md
"$SK_CLI_REAL" export-mannequin "$tmp/m.glb" >/dev/null

for fade in "walk run 1 0.5" "idle walk 0.25 1.5" "walk run 0.5 0"; do
  read -r a b at seconds <<< "$fade"
  "$tmp/from_threejs" "$tmp/m.glb" "$a" "$b" "$at" "$seconds" > "$tmp/out.txt"
  "${check[@]}" threejs "$tmp/out.txt" --cli "$SK_CLI_REAL" --file "$tmp/m.glb" --clips "$a" "$b" \
    --fade "$at" "$seconds" --min 936
done

porting_refuses "FADE_AT" "$tmp/from_threejs" "$tmp/m.glb" walk run -1 0.5
porting_refuses "FADE_AT" "$tmp/from_threejs" "$tmp/m.glb" walk run 1 inf
porting_refuses "no clip" "$tmp/from_threejs" "$tmp/m.glb" walk 99
porting_refuses "missing.glb" "$tmp/from_threejs" "$tmp/missing.glb" 0 0

if porting_cesium; then
  "$tmp/from_threejs" "$CESIUM" 0 0 > "$tmp/cesium.txt"
  "${check[@]}" threejs "$tmp/cesium.txt" --cli "$SK_CLI_REAL" --file "$CESIUM" --oracle "$ORACLE" --min 160
fi
sk_done cli_porting_threejs
