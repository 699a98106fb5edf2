#!/usr/bin/env bash
# docs/porting-ozz.md's program, examples/porting/from_ozz.c (ozz's playback
# and blend samples written with skelanim): the page shows the file as it
# is; it builds against the shared libraries as a user's program would; and
# what it prints is checked against references it does not compute
# (tests/porting_check.py):
#   - one clip on the mannequin (.glb): every joint's model-space position at
#     7 frames equals `skelanim sample --json` within 1e-4 m (154 values);
#   - walk and run blended 0.7/0.3 with synchronised loops: both clip times at
#     the closed-form phase frac(t / ((1-w) d_walk + w d_run)), and the
#     positions equal an nlerp of the two clips' sampled local transforms
#     carried through the .glb's hierarchy in Python (154 values);
#   - CesiumMan (../shared): positions within three.js's oracle
#     (oracle.three.json, its tolerances) where a frame's clip time is one of
#     its samples (200 values);
#   - a NaN blend weight, an unknown clip and a missing file are refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/porting_lib.sh"
: "${SK_BINARY_DIR:?}" "${SK_SOURCE_DIR:?}" "${SK_CLI_REAL:?}"
sk_need_cmd "${SK_CC:-cc}" "the C compiler the tree was built with"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check=(python3 "$SK_SOURCE_DIR/tests/porting_check.py")
porting_build from_ozz porting-ozz.md
"$SK_CLI_REAL" export-mannequin "$tmp/m.glb" >/dev/null

"$tmp/from_ozz" "$tmp/m.glb" walk > "$tmp/one.txt"
"${check[@]}" ozz "$tmp/one.txt" --cli "$SK_CLI_REAL" --file "$tmp/m.glb" --clips walk --min 154
"$tmp/from_ozz" "$tmp/m.glb" walk run 0.3 > "$tmp/blend.txt"
"${check[@]}" ozz "$tmp/blend.txt" --cli "$SK_CLI_REAL" --file "$tmp/m.glb" --clips walk run --blend 0.3 --min 154

porting_refuses "BLEND" "$tmp/from_ozz" "$tmp/m.glb" walk run nan
porting_refuses "no clip" "$tmp/from_ozz" "$tmp/m.glb" walk nosuchclip 0.5
porting_refuses "missing.glb" "$tmp/from_ozz" "$tmp/missing.glb"

if porting_cesium; then
  "$tmp/from_ozz" "$CESIUM" > "$tmp/cesium.txt"
  "${check[@]}" ozz "$tmp/cesium.txt" --cli "$SK_CLI_REAL" --file "$CESIUM" --oracle "$ORACLE" --min 200
fi
sk_done cli_porting_ozz
