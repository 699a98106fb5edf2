#!/usr/bin/env bash
# The SDL2 viewer and `demo --window` under a virtual X server (Xvfb).
# - Scripted input (--keys, pushed through SDL's event queue and the same key
#   mapping as real presses) must change the state the way docs/rendering.md
#   says: clips, pause, scrub, speed, CPU/GPU and LBS/DQS, skeleton, camera.
# - The window's pixels must match `skelanim render` of the same pose and
#   camera (the viewer and the off-screen renderer share the shaders), must
#   not match a different pose, and the skeleton overlay must show.
# Without xvfb-run (Debian: xvfb xauth), SDL2 in the tool, the sk_png_diff
# helper (libpng) or ../shared (the CesiumMan part), tests/lib.sh's rule: a
# failure under CI, else skipped (exit 77) with a note.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd xvfb-run "Debian: xvfb xauth"
sk_need_cmd Xvfb "Debian: xvfb"
view_usage=$("$SK_CLI" view 2>&1 || true) # (a pipe into grep would take skelanim's exit status under pipefail)
if grep -q "without SDL2" <<<"$view_usage"; then
  sk_missing "skelanim was built without SDL2 (Debian: libsdl2-dev): no viewer to test"
fi
[[ -n "${SK_PNG_DIFF:-}" && -x "$SK_PNG_DIFF" ]] ||
  sk_missing "no sk_png_diff helper (tests/png_diff.c needs libpng: Debian libpng-dev)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# SDL, Xlib and Mesa keep allocations to process exit: leak checking is off
# for these runs only (the library's own leaks are checked by the C tests).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export SDL_AUDIODRIVER=dummy
xvfb() { xvfb-run -a -s "-screen 0 1024x768x24" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# --- keys and mouse -------------------------------------------------------
xvfb "$SK_CLI" view @mannequin --frames 16 --size 320x240 --print-state \
  --keys tab,space,right,right,up,c,d,k,1,backtab,r,drag,wheelup,pan,left >"$tmp/state.txt"
cat "$tmp/state.txt"
field() { # frame name -> the word after NAME on that frame's line
  awk -v f="$1" -v k="$2" '$1 == "frame" && $2 == f { for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/state.txt"
}
state() { awk -v f="$1" '$1 == "frame" && $2 == f { print $9 }' "$tmp/state.txt"; }
# (each "frame" line is followed by a "title" line: the window's title after that frame)
expect() { # frame name value
  local got; got=$(field "$1" "$2")
  [[ "$got" == "$3" ]] || fail "frame $1: $2 is '$got', expected '$3'"
}
expect 0 clip idle;    expect 0 time 0.0333; expect 0 mode gpu; [[ $(state 0) == playing ]] || fail "frame 0 not playing"
expect 1 clip walk;    expect 1 time 0.0333           # tab: next clip, restarted (then one 1/30 s step)
[[ $(state 2) == paused ]] || fail "space did not pause"; expect 2 time 0.0333
expect 3 time 0.0667;  expect 4 time 0.1000           # right: scrub +1/30 s
expect 5 speed 1.2500                                 # up: speed x1.25
expect 6 mode cpu-lbs; expect 7 mode cpu-dqs          # c, d
expect 8 skeleton on                                  # k
expect 9 clip idle;    expect 9 time 0.0000           # 1: first clip
expect 10 clip strafe_right                           # shift-tab from the first: the last clip
expect 11 camera 35.00                                # r: camera reset (framed on strafe_right)
expect 12 camera 15.00                                # drag 50 px: azimuth -20 degrees
d11=$(awk '$1 == "frame" && $2 == 11 { for (i = 1; i < NF; i++) if ($i == "camera") print $(i + 3) }' "$tmp/state.txt")
d13=$(awk '$1 == "frame" && $2 == 13 { for (i = 1; i < NF; i++) if ($i == "camera") print $(i + 3) }' "$tmp/state.txt")
awk -v a="$d11" -v b="$d13" 'BEGIN { exit !(b > 0.89 * a && b < 0.91 * a) }' || fail "wheel: distance $d11 -> $d13, expected x0.9"
t13=$(field 13 target); t14=$(field 14 target)
[[ "$t13" != "$t14" ]] || fail "pan did not move the camera target"
expect 15 time 0.5667                                 # left from 0 wraps to the end of strafe_right (0.6 s)
# The title: clip, time, speed, pause, skinning path, frame time and its animation part.
grep -q '^title skelanim view — @mannequin — clip walk 0.03/1.07 s ×1.00 — GPU skinning — [0-9.]* ms/frame (animation [0-9.]* ms)$' \
  "$tmp/state.txt" || fail "frame 1's window title"
grep -q '^title .*clip strafe_right 0.57/0.60 s ×1.25 paused — CPU DQS — ' "$tmp/state.txt" || fail "last frame's window title"
if "$SK_CLI" view @mannequin --frames 2 --keys nosuchkey 2>"$tmp/err.txt"; then fail "unknown key name accepted"; fi
grep -q "unknown key name 'nosuchkey'" "$tmp/err.txt" || fail "no message for an unknown key"

# --- pixels: the window shows what the off-screen renderer draws ----------
diffs() { "$SK_PNG_DIFF" "$1" "$2" | awk '{ printf "%d %.4f\n", $1, $1 / $2 }'; }
"$SK_CLI" render @mannequin --clip walk --time 0.4 --size 320x240 --out "$tmp/r04.png" >/dev/null
"$SK_CLI" render @mannequin --clip walk --time 0.9 --size 320x240 --out "$tmp/r09.png" >/dev/null
for mode in "" --cpu --dqs; do
  xvfb "$SK_CLI" view @mannequin --clip walk --time 0.4 --frames 2 --size 320x240 $mode --screenshot "$tmp/v.png" >/dev/null
  read -r n f < <(diffs "$tmp/v.png" "$tmp/r04.png")
  echo "view ${mode:-(GPU)} vs render, same pose: $n pixels differ ($f)"
  awk -v f="$f" 'BEGIN { exit !(f < 0.01) }' || fail "viewer ${mode:-GPU} image differs from render in $f of pixels"
  read -r n f2 < <(diffs "$tmp/v.png" "$tmp/r09.png")
  echo "view ${mode:-(GPU)} vs render, another pose: $n pixels differ ($f2)"
  awk -v f="$f2" 'BEGIN { exit !(f > 0.05) }' || fail "viewer image does not change with the pose ($f2)"
done
xvfb "$SK_CLI" view @mannequin --clip walk --time 0.4 --frames 2 --size 320x240 --skeleton --screenshot "$tmp/k.png" >/dev/null
read -r n f < <(diffs "$tmp/k.png" "$tmp/r04.png")
echo "skeleton overlay: $n pixels differ ($f)"
awk -v f="$f" 'BEGIN { exit !(f > 0.005) }' || fail "skeleton overlay not visible ($f)"
if shared=$(sk_shared_dir); then
  cm="$shared/assets/gltf/CesiumMan/CesiumMan.glb"
  [[ -f "$cm" ]] || fail "$cm is missing from ../shared"
  xvfb "$SK_CLI" view "$cm" --time 0.5 --frames 2 --size 320x240 --screenshot "$tmp/vc.png" >/dev/null
  "$SK_CLI" render "$cm" --time 0.5 --size 320x240 --out "$tmp/rc.png" >/dev/null
  read -r n f < <(diffs "$tmp/vc.png" "$tmp/rc.png")
  echo "CesiumMan (textured) view vs render: $n pixels differ ($f)"
  awk -v f="$f" 'BEGIN { exit !(f < 0.01) }' || fail "CesiumMan viewer image differs from render in $f of pixels"
else
  sk_missing_part "../shared is absent (SK_SHARED_DIR=${SK_SHARED_DIR:-unset}): the CesiumMan viewer check"
fi

# --- demo --window ----------------------------------------------------------
xvfb "$SK_CLI" demo --window --count 20 --frames 3 --png "$tmp/demo.png" >"$tmp/demo.txt"
cat "$tmp/demo.txt"
grep -q "animation CPU time per frame" "$tmp/demo.txt" || fail "demo --window printed no animation time"
"$SK_CLI" render @mannequin --size 1024x720 --out "$tmp/one.png" >/dev/null
read -r n f < <(diffs "$tmp/demo.png" "$tmp/one.png")
awk -v f="$f" 'BEGIN { exit !(f > 0.02) }' || fail "demo window looks empty"

# Without a display the viewer says so and fails instead of opening an invisible window.
if env -u DISPLAY -u WAYLAND_DISPLAY "$SK_CLI" view @mannequin --frames 1 2>"$tmp/err.txt"; then
  fail "view without a display should fail"
fi
grep -q "no display" "$tmp/err.txt" || fail "no 'no display' message"
sk_done "viewer under Xvfb"
