#!/usr/bin/env bash
# skelanim analyze: the mannequin's walk and run (text and --json), --legs
# given by hand, --backward, and the errors for unknown clips and joints.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SK_CLI" analyze @mannequin >"$tmp/walk.txt"
cat "$tmp/walk.txt"
grep -q '^clip 1 "walk": 128 samples over 1.0667 s' "$tmp/walk.txt" || fail "no walk header"
grep -Eq '^cycle: 1\.49[0-9]+ m/cycle, 1\.39[0-9]+ m/s, direction \(-?0\.000, -?0\.000, 1\.000\)' "$tmp/walk.txt" \
  || fail "walk cycle speed/direction"
grep -q "^leg left: hip thigh_l, knee shin_l, ankle foot_l, toe toe_l" "$tmp/walk.txt" || fail "left leg"
grep -q "^analysis time: " "$tmp/walk.txt" || fail "no analysis time"
grep -q "^heel/toe from the mesh sole$" "$tmp/walk.txt" || fail "heel/toe not from the mesh sole"
# A loop: the seed's contact stride (footprints need a cycle inside a longer clip).
[[ $(grep -c "m/s), direction .*, from contact$" "$tmp/walk.txt") == 2 ]] || fail "walk stride not from the contact"
# The way the body faces and the cycle travels from it: the mannequin's clips are authored facing +Z.
grep -Eq '^body faces [+-]0\.[0-9] deg .*; the cycle travels [+-]0\.[0-9] deg from it \(forward\)$' "$tmp/walk.txt" \
  || fail "walk: body facing"
for c in "walk_back:backward" "strafe_left:to its left" "strafe_right:to its right"; do
  "$SK_CLI" analyze @mannequin --clip "${c%%:*}" >"$tmp/dir.txt"
  grep -Eq "^body faces [+-]0\.[0-9] deg .*\(${c#*:}\)$" "$tmp/dir.txt" || { cat "$tmp/dir.txt"; fail "${c%%:*}: facing"; }
done

"$SK_CLI" analyze @mannequin --clip run --json >"$tmp/run.json"
python3 - "$tmp/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["analysis"]
assert d["analysis_ms"] > 0, d["analysis_ms"]
assert a["format"] == "skelanim-motion-analysis" and a["clip"] == "run", a["clip"]
assert abs(a["cycle_speed"] - 3.5) < 0.035, a["cycle_speed"]
assert len(a["legs"]) == 2 and a["legs"][0]["name"] == "left"
assert len(a["legs"][0]["samples"]["heel"]) == 3 * a["sample_count"]
print("run: %.4f m/s, analysis %.3f ms" % (a["cycle_speed"], d["analysis_ms"]))
PY

# Legs by hand (names or indices; the toe may be left out) and backward.
"$SK_CLI" analyze @mannequin --legs thigh_l:shin_l:foot_l:toe_l,17:18:19 --backward >"$tmp/b.txt"
grep -q "(backward)" "$tmp/b.txt" || fail "no backward"
grep -Eq 'direction \(-?0\.000, -?0\.000, -1\.000\)' "$tmp/b.txt" || fail "backward direction not -Z"
grep -q "^leg leg 1: hip thigh_r, knee shin_r, ankle foot_r, toe (none)" "$tmp/b.txt" || fail "leg by index"

# A character whose joint names sk_legs_find does not know (CesiumMan's "leg_joint_L_1" ...): its
# legs are its humanoid map's, found by shape; the left one is the chain its author named L.
if shared=$(sk_shared_dir) && [[ -f "$shared/assets/gltf/CesiumMan/CesiumMan.glb" ]]; then
  "$SK_CLI" analyze "$shared/assets/gltf/CesiumMan/CesiumMan.glb" >"$tmp/cm.txt" 2>&1 || { cat "$tmp/cm.txt"; fail "analyze CesiumMan"; }
  grep -q "^leg left: hip leg_joint_L_1, knee leg_joint_L_2, ankle leg_joint_L_3, toe leg_joint_L_5$" "$tmp/cm.txt" \
    || { cat "$tmp/cm.txt"; fail "CesiumMan's left leg"; }
  grep -q "^leg right: hip leg_joint_R_1, knee leg_joint_R_2, ankle leg_joint_R_3, toe leg_joint_R_5$" "$tmp/cm.txt" \
    || { cat "$tmp/cm.txt"; fail "CesiumMan's right leg"; }
else
  sk_missing_part "../shared/assets/gltf/CesiumMan/CesiumMan.glb not found: legs from the humanoid map not checked"
fi

# --still-band: 0 is the documented default 0.03 (the same analysis), and a narrower band reaches the
# analysis (CMU 07_05's planted phases end earlier at 0.01 of the leg).
: "${SK_SOURCE_DIR:?}"
w=$SK_SOURCE_DIR/tests/data/cmu-walks/07_05.bvh
for b in 0 0.03 0.01; do
  "$SK_CLI" analyze "$w" --scale 0.056444 --cycle auto --still-band $b --json >"$tmp/band_$b.json"
done
python3 - "$tmp/band_0.json" "$tmp/band_0.03.json" "$tmp/band_0.01.json" <<'EOF'
import json, sys
legs = [[(l["foot_land"], l["foot_lift"]) for l in json.load(open(f))["analysis"]["legs"]] for f in sys.argv[1:]]
assert len(legs[0]) == 2 and legs[0] == legs[1], legs
assert legs[2] != legs[0], legs
EOF

# A foot never found planted is noted (CMU 01_14, a playground climb: both feet); a walk's are not.
"$SK_CLI" analyze "$SK_SOURCE_DIR/tests/data/cmu/01_14.bvh" --scale 0.056444 --cycle auto >"$tmp/climb.txt"
[ "$(grep -c "^note: the .* foot is planted for [0-9]*% of the cycle" "$tmp/climb.txt")" = 2 ] || { cat "$tmp/climb.txt"; fail "01_14: no notes"; }
"$SK_CLI" analyze "$SK_SOURCE_DIR/tests/data/cmu/02_02.bvh" --scale 0.056444 --cycle auto >"$tmp/walk.txt"
if grep -q "foot is planted for" "$tmp/walk.txt"; then cat "$tmp/walk.txt"; fail "02_02 (a walk): noted"; fi

bad() { # expected message, then the arguments
  local msg=$1; shift
  if "$SK_CLI" analyze "$@" >/dev/null 2>"$tmp/err.txt"; then fail "accepted: $*"; fi
  grep -q -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
}
bad "no such clip" @mannequin --clip nosuchclip
bad "knee joint 'nosuch' not found" @mannequin --legs thigh_l:nosuch:foot_l
bad "expected HIP:KNEE:ANKLE" @mannequin --legs thigh_l:shin_l
bad "not in a chain" @mannequin --legs thigh_l:shin_r:foot_l
bad "does not move" @mannequin --clip idle
bad "cannot write /nonexistent/x.png" @mannequin --plot /nonexistent/x.png
bad "--cycle: '1' is not 2 numbers separated by ':'" @mannequin --cycle 1
bad "not inside the clip" @mannequin --cycle 0:5
bad "expected auto, contact or footprints" @mannequin --stride x
bad "outside \[0, 0.49\]" @mannequin --still-band 0.5
bad "not a finite number" @mannequin --still-band nan
bad "usage"
sk_done cli_analyze
