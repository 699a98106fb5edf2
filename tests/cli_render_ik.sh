#!/usr/bin/env bash
# skelanim render --ik (reach / slope), PNG frame sequences, --camera, and
# the errors for bad IK and camera options.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Mesa keeps allocations to process exit: leak checking is off for these
# runs (the IK scene itself is checked with leak detection in test_ik_render).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

"$SK_CLI" render @mannequin --ik reach --frames 12 --size 160x160 --out "$tmp/reach.gif" >"$tmp/out.txt"
cat "$tmp/out.txt"
[[ "$(head -c 6 "$tmp/reach.gif")" == GIF89a ]] || fail "reach.gif is not a GIF"
grep -Eq "IK reach: [0-9]+ of 12 frames reachable, largest hand-to-target distance there [0-9.e+-]+ m; [1-9][0-9]* beyond reach" \
  "$tmp/out.txt" || fail "no reach summary"
"$SK_CLI" render @mannequin --ik slope --slope 10 --frames 3 --size 160x160 --camera left --out "$tmp/s.png" >"$tmp/out.txt"
cat "$tmp/out.txt"
for f in 000 001 002; do [[ -s "$tmp/s-$f.png" ]] || fail "missing PNG frame s-$f.png"; done
[[ ! -e "$tmp/s-003.png" ]] || fail "one PNG frame too many"
grep -q "IK slope: 10.0 degrees" "$tmp/out.txt" || fail "no slope summary"
"$SK_CLI" render @mannequin --ik reach --ik-chain clavicle_r:hand_r --camera 20,30 --size 96x96 --out "$tmp/fab.png" >/dev/null

bad() { # expected message, then the arguments
  local msg=$1; shift
  if "$SK_CLI" render @mannequin "$@" --out "$tmp/x.png" 2>"$tmp/err.txt"; then fail "accepted: $*"; fi
  grep -q -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
}
bad "expected reach or slope" --ik walk
bad "expected an angle in (-60, 60)" --ik slope --slope 75
bad "nosuch" --ik reach --ik-chain nosuch:hand_r
bad "expected ROOT:TIP" --ik reach --ik-chain hand_r
bad "goes with --ik reach" --ik slope --ik-chain upperarm_r:hand_r
bad "the two-bone leg needs 3" --ik slope --ik-legs hips:foot_l,thigh_r:foot_r
bad "elevation must be within" --camera 0,95
bad "expected auto, front" --camera sideways
# Another character: the default (mannequin) joint names are missing -> a hint; named chains work.
if shared=$(sk_shared_dir); then
  cm="$shared/assets/gltf/CesiumMan/CesiumMan.glb"
  [[ -f "$cm" ]] || fail "$cm is missing from ../shared"
  if "$SK_CLI" render "$cm" --ik reach --out "$tmp/x.png" 2>"$tmp/err.txt"; then fail "reach without a chain accepted on CesiumMan"; fi
  grep -q -- "--ik-chain ROOT:TIP" "$tmp/err.txt" || fail "no --ik-chain hint"
  if "$SK_CLI" render "$cm" --ik slope --out "$tmp/x.png" 2>"$tmp/err.txt"; then fail "slope without legs accepted on CesiumMan"; fi
  grep -q -- "--ik-legs" "$tmp/err.txt" || fail "no --ik-legs hint"
  "$SK_CLI" render "$cm" --ik reach --ik-chain Skeleton_arm_joint_R:Skeleton_arm_joint_R__3_ --frames 6 --size 96x96 \
    --out "$tmp/cm.gif" | grep -q "IK reach: [0-9]* of 6 frames reachable, largest hand-to-target distance there [0-9.e-]* m" \
    || fail "CesiumMan reach"
  "$SK_CLI" render "$cm" --ik slope --ik-legs leg_joint_L_1:leg_joint_L_3,leg_joint_R_1:leg_joint_R_3 --frames 4 \
    --size 96x96 --out "$tmp/cs.gif" | grep -q "IK slope: 15.0 degrees" || fail "CesiumMan slope"
else
  sk_missing_part "../shared is absent (SK_SHARED_DIR=${SK_SHARED_DIR:-unset}): the CesiumMan --ik checks"
fi
sk_done "render --ik"
