#!/usr/bin/env bash
# Feet over convex ground: up a ramp onto its flat top (`--terrain ramp:DEG,LEN`, the crest at
# z = 1 + LEN) and from a flat top down a ramp (`ramp:-DEG`, the brink at z = 1), walked straight
# over by the IK-only walker (--procedural) and by the semi-procedural locomotor (the mannequin's
# clips), at 0.5, 0.8 and 1.4 m/s (the speeds at which the walker's toe went 1.0-2.6 cm into the
# ground at 30 and 45 degree crests before the footsteps took convexity into account).
#
# Computed HERE from each --trace against the terrain's closed form, not from the tool's numbers:
#   penetration  at any frame, how far heel or toe is below the ground: < 1 cm
#   contact      in stance, the nearer of heel and toe to the ground: < 1 cm
# and the tool's --json penetration must agree with the test's within 1 mm (the same quantity).
# Also the terrain's errors (a negative length, three numbers).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian package python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

n=0
for mode in procedural clips; do
  for spec in ramp:30,2 ramp:45,2 ramp:-30 ramp:-45; do
    for v in 0.5 0.8 1.4; do
      extra=()
      [[ $mode == procedural ]] && extra=(--procedural)
      "$SK_CLI" locomote @mannequin "${extra[@]}" --terrain "$spec" --path "0,0 0,6" --speed "$v" \
        --trace "$tmp/t.jsonl" --json >"$tmp/m.json"
      python3 - "$spec" "$tmp/t.jsonl" "$tmp/m.json" "$mode $spec $v" <<'EOF'
import json, math, sys
spec, trace, metrics, name = sys.argv[1:5]
nums = [float(x) for x in spec.split(":")[1].split(",")]
tan = math.tan(math.radians(nums[0]))
length = nums[1] if len(nums) > 1 else 0.0
def ground(z):  # flat to z = 1, the slope, then flat at the top after LEN (0: endless)
    if z < 1: return 0.0
    if length > 0 and z > 1 + length: return length * tan
    return (z - 1) * tan
frames = [json.loads(l) for l in open(trace)]
assert len(frames) > 200, len(frames)
pen = con = 0.0
stance = 0
for f in frames:
    for ft in f["feet"]:
        dh = ft["heel"][1] - ground(ft["heel"][2])
        dt = ft["toe"][1] - ground(ft["toe"][2])
        pen = max(pen, -dh, -dt)
        if ft["stance"]:
            stance += 1
            con = max(con, min(abs(dh), abs(dt)))
m = json.load(open(metrics))
assert stance > 100, (name, stance)
assert pen < 0.01 and con < 0.01, "%s: penetration %.2f cm, contact %.2f cm" % (name, 100 * pen, 100 * con)
assert abs(m["penetration_max_cm"] - 100 * max(pen, 0.0)) < 0.1, (name, m["penetration_max_cm"], 100 * pen)
print("%-26s penetration %.3f cm, contact %.3f cm over %d stance leg-frames" % (name, 100 * max(pen, 0), 100 * con, stance))
EOF
      n=$((n + 1))
    done
  done
done
[[ $n -eq 24 ]] || fail "$n cases, expected 24"

# the terrain's form
if "$SK_CLI" locomote @mannequin --terrain ramp:45,-1 >/dev/null 2>"$tmp/err"; then fail "ramp:45,-1 accepted"; fi
grep -qF "the length must be 0 (endless) to 10 km" "$tmp/err" || { cat "$tmp/err"; fail "ramp:45,-1 message"; }
if "$SK_CLI" locomote @mannequin --terrain ramp:45,1,2 >/dev/null 2>"$tmp/err"; then fail "ramp:45,1,2 accepted"; fi
grep -qF "expected ramp:DEG or ramp:DEG,LENGTH" "$tmp/err" || { cat "$tmp/err"; fail "ramp:45,1,2 message"; }
echo "crests: $n walks over convex ground within 1 cm"
