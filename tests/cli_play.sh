#!/usr/bin/env bash
# skelanim play under a virtual X server (Xvfb), driven by --script:
# - keys pushed through SDL's event queue walk the mannequin forward 3 s, then
#   to the camera's right 2 s: its end position must be within 0.5 m of where
#   the script takes a point that obeys the documented rules (docs/play.md:
#   the path follower's turn-rate and acceleration limits), integrated here
#   independently with a step 20 times finer;
# - the same with a virtual game controller (left stick, the right trigger
#   to run): the controller's events must arrive, the end point must match;
# - on the way the feet meet the locomotion bench's limits (slide < 0.5 cm per
#   stance, contact < 1 cm, penetration < 1 cm);
# - the same keys on CesiumMan with its clips from elsewhere (play --from: CMU 02_01, it reversed
#   with --from-reversed, the mannequin's strafes, CMU 09_11), the same reference and limits;
# - bad scripts are refused with the file and line.
# Without xvfb-run, SDL2 in the tool or python3: tests/lib.sh's rule (a
# failure under CI, else skipped).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd xvfb-run "Debian: xvfb xauth"
sk_need_cmd Xvfb "Debian: xvfb"
sk_need_cmd python3 "Debian: python3"
usage=$("$SK_CLI" play 2>&1 || true)
if grep -q "without SDL2" <<<"$usage"; then
  sk_missing "skelanim was built without SDL2 (Debian: libsdl2-dev): nothing to play in"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # SDL, Xlib and Mesa keep allocations to exit
export SDL_AUDIODRIVER=dummy
xvfb() { xvfb-run -a -s "-screen 0 1024x768x24" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# The reference: the rules of docs/play.md, integrated at 1200 steps a second.
# Camera at azimuth 180 degrees (behind the character, which starts at the
# origin facing +Z): forward is +Z, the camera's right is -X.
reference() { # script kind: prints "X Z"
  python3 - "$1" <<'EOF'
import math, sys
walk, run, turn, acc = 1.4, 3.0, math.radians(90), 2.0
ev = []
for line in open(sys.argv[1]):
    w = line.split('#')[0].split()
    if w: ev.append(w)
def wrap(a):
    while a > math.pi: a -= 2 * math.pi
    while a < -math.pi: a += 2 * math.pi
    return a
keys, axes = set(), {}
x = z = yaw = v = 0.0
t, dt, i = 0.0, 1.0 / 1200, 0
end = max(float(e[0]) for e in ev if e[1] == 'quit')
while t < end - 1e-9:
    while i < len(ev) and float(ev[i][0]) <= t + 1e-9:
        e = ev[i]; i += 1
        if e[1] == 'key': (keys.add if e[3] == 'down' else keys.discard)(e[2])
        if e[1] == 'axis': axes[e[2]] = float(e[3])
    fwd = ('w' in keys) - ('s' in keys) - axes.get('lefty', 0)
    right = ('d' in keys) - ('a' in keys) + axes.get('leftx', 0)
    running = 'shift' in keys or axes.get('righttrigger', 0) > 0.5
    m = math.hypot(fwd, right)
    want_v = 0.0
    if m > 0:
        dx, dz = -right, fwd  # camera right is -X, forward +Z
        err = wrap(math.atan2(dx, dz) - yaw)
        yaw = wrap(yaw + max(-turn * dt, min(turn * dt, err)))
        want_v = (run if running else walk) * min(m, 1) * (1 - min(abs(err) / (math.pi / 2), 1) * 0.7)
    v += max(-acc * dt, min(acc * dt, want_v - v))
    x += v * math.sin(yaw) * dt
    z += v * math.cos(yaw) * dt
    t += dt
print(f"{x:.4f} {z:.4f}")
EOF
}

check_run() { # name script.txt [CHARACTER [PLAY OPTIONS...]]: runs it, compares with the reference and the bench limits
  local name=$1 script=$2 who=${3:-@mannequin}
  shift 2
  (($#)) && shift
  xvfb "$SK_CLI" play "$who" "$@" --script "$script" --size 320x240 --panel off --json >"$tmp/$name.json" ||
    fail "$name: play failed"
  cat "$tmp/$name.json"
  read -r rx rz < <(reference "$script")
  python3 - "$tmp/$name.json" "$rx" "$rz" "$name" <<'EOF' || exit 1
import json, math, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
rx, rz, name = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
px, _, pz = r["position"]
d = math.hypot(px - rx, pz - rz)
print(f"{name}: end ({px:.3f}, {pz:.3f}), the script's point ({rx:.3f}, {rz:.3f}): {d:.3f} m apart; "
      f"slide max {r['slide_max_cm']:.4f} cm over {r['stance_runs']} stance runs, contact max "
      f"{r['contact_max_cm']:.4f} cm, penetration max {r['penetration_max_cm']:.4f} cm")
bad = []
if math.hypot(rx, rz) < 3: bad.append("the reference walk is too short to tell anything")
if d > 0.5: bad.append(f"end position {d:.3f} m from the script's point (limit 0.5 m)")
if r["stance_runs"] < 6: bad.append(f"only {r['stance_runs']} stance runs: the character hardly walked")
if not r["slide_max_cm"] < 0.5: bad.append(f"foot slide {r['slide_max_cm']} cm (limit 0.5)")
if not r["contact_max_cm"] < 1: bad.append(f"contact {r['contact_max_cm']} cm (limit 1)")
if not r["penetration_max_cm"] < 1: bad.append(f"penetration {r['penetration_max_cm']} cm (limit 1)")
if name == "pad" and r["pad_events"] < 3: bad.append(f"{r['pad_events']} game controller events arrived")
if name == "keys" and r["pad_events"] != 0: bad.append("controller events without a controller")
for b in bad: print(f"FAIL: {name}: {b}")
sys.exit(1 if bad else 0)
EOF
}

# --- keys: forward 3 s, then right (a quarter turn) 2 s, then standing ------
cat >"$tmp/keys.txt" <<'EOF'
0.0 key w down
3.0 key w up
3.0 key d down
5.0 key d up
7.0 quit
EOF
check_run keys "$tmp/keys.txt"
# the same keys driving the N-legged walker's quadruped (its feet by the same limits)
check_run keys_quadruped "$tmp/keys.txt" @quadruped

# the same keys driving CesiumMan with clips from elsewhere (--from): the CMU walk 02_01, it played
# in reverse (--from-reversed), the mannequin's strafes and the CMU run 09_11, retargeted
if shared=$(sk_shared_dir); then
  bvh="$shared/mocap/bvh"
  check_run keys_from "$tmp/keys.txt" "$shared/assets/gltf/CesiumMan/CesiumMan.glb" --from "$bvh/02_01.bvh" \
    --from-reversed "$bvh/02_01.bvh" --from @mannequin:strafe_left --from @mannequin:strafe_right \
    --from "$bvh/09_11_fbx2bvh.bvh" --from-scale 0.056444
  if "$SK_CLI" play @mannequin --procedural --from "$bvh/02_01.bvh" 2>"$tmp/err.txt"; then fail "--from with --procedural accepted"; fi
  grep -q "walks without clips" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no message for --from with --procedural"; }
else
  sk_missing_part "../shared (SK_SHARED_DIR) is absent: play with --from (the CMU captures and CesiumMan)"
fi

# --- a virtual game controller: the left stick, running on the right trigger
cat >"$tmp/pad.txt" <<'EOF'
0.0 axis lefty -1
1.0 axis righttrigger 1
2.5 axis righttrigger 0
3.0 axis lefty 0
3.0 axis leftx 1
5.0 axis leftx 0
7.0 quit
EOF
check_run pad "$tmp/pad.txt"

# --- the panel (a 480x480 window: the mannequin's five clips' weights make it taller than 360) (Dear ImGui): scripted clicks toggle its checkboxes, F1 hides it;
# in view it draws in its rectangle (270 pixels wide at (8, 8)) and nowhere else
xvfb "$SK_CLI" play @mannequin --frames 20 --size 480x480 --json >"$tmp/panel0.json" || fail "play with the panel failed"
if grep -q '"built":false' "$tmp/panel0.json"; then
  sk_missing_part "skelanim was built without the panel (SK_PANEL, Debian: libimgui-dev): no panel to test"
else
  # the checkboxes' centres, as the panel placed them
  read -r fx fy px py < <(python3 -c '
import json, sys
it = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["panel"]["items"]
c = lambda r: (round(r[0] + 9), round(r[1] + r[3] / 2))
print(*c(it["show_footsteps"]), *c(it["show_path"]))' "$tmp/panel0.json")
  printf '0.2 click %s %s\n0.4 click %s %s\n0.6 click %s %s\n0.8 click %s %s\n1.0 quit\n' \
    "$fx" "$fy" "$px" "$py" "$px" "$py" "$px" "$py" >"$tmp/clicks.txt"
  xvfb "$SK_CLI" play @mannequin --script "$tmp/clicks.txt" --size 480x480 --json >"$tmp/clicks.json" || fail "clicks"
  grep -q '"show_footsteps":true,"show_keytimes":false,"show_weights":false,"show_path":true' "$tmp/clicks.json" ||
    { cat "$tmp/clicks.json"; fail "one click on footsteps and three on path did not leave both checked"; }
  printf '0.2 click %s %s\n0.5 key f1 down\n0.5 key f1 up\n0.7 click %s %s\n1.0 quit\n' "$fx" "$fy" "$fx" "$fy" >"$tmp/f1.txt"
  xvfb "$SK_CLI" play @mannequin --script "$tmp/f1.txt" --size 480x480 --json >"$tmp/f1.json" || fail "f1"
  grep -q '"visible":false,"show_footsteps":true,' "$tmp/f1.json" ||
    { cat "$tmp/f1.json"; fail "F1 did not hide the panel, or a click went through the hidden panel"; }
  [[ -n "${SK_PNG_DIFF:-}" && -x "$SK_PNG_DIFF" ]] || sk_missing "no sk_png_diff helper (tests/png_diff.c needs libpng)"
  for p in on off; do
    xvfb "$SK_CLI" view @mannequin --clip walk --time 0.4 --frames 3 --size 480x360 --panel $p \
      --screenshot "$tmp/view_$p.png" >/dev/null || fail "view --panel $p"
  done
  read -r n total inside < <("$SK_PNG_DIFF" "$tmp/view_on.png" "$tmp/view_off.png" 24 0 0 290 360)
  echo "view --panel on vs off: $n of $total pixels differ, $inside of them inside the panel's rectangle"
  ((n > total / 20)) || fail "the panel changed only $n pixels"
  ((inside == n)) || fail "$((n - inside)) pixels changed outside the panel's rectangle"
  # O turns the locomotion debugging view on: its HUD (top left, 210 px wide) appears, the rest
  # of the scene is the same walk
  printf '0.0 key w down\n' >"$tmp/noov.txt"
  printf '0.0 key w down\n0.5 key o down\n0.5 key o up\n' >"$tmp/ov.txt"
  for o in noov ov; do
    xvfb "$SK_CLI" play @mannequin --script "$tmp/$o.txt" --frames 90 --fps 60 --size 480x360 --panel off \
      --screenshot "$tmp/$o.png" >/dev/null || fail "play $o"
  done
  read -r n total inside < <("$SK_PNG_DIFF" "$tmp/ov.png" "$tmp/noov.png" 24 6 6 210 60)
  echo "play, O pressed: $n of $total pixels differ, $inside of them in the HUD's top rows"
  ((inside > 2000)) || fail "O drew only $inside pixels of the debugging view's HUD"
fi

# --- bad scripts: the file and line, exit 1 --------------------------------
printf '0 key w down\n1 key nosuch down\n' >"$tmp/bad1.txt"
printf '2 key w down\n1 key w up\n' >"$tmp/bad2.txt"
printf '0 axis leftx nan\n' >"$tmp/bad3.txt"
for b in bad1:2:"unknown key" bad2:2:"time 1 is before the line above" bad3:1:"expected a value"; do
  f=${b%%:*} rest=${b#*:}; line=${rest%%:*} msg=${rest#*:}
  if "$SK_CLI" play @mannequin --script "$tmp/$f.txt" 2>"$tmp/err.txt"; then fail "$f accepted"; fi
  grep -q "$f.txt:$line: $msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "$f: no message naming line $line"; }
done
if "$SK_CLI" play @mannequin --script "$tmp/none.txt" 2>"$tmp/err.txt"; then fail "a missing script accepted"; fi
grep -q "cannot read" "$tmp/err.txt" || fail "no message for a missing script"

sk_done cli_play
