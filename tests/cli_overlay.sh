#!/usr/bin/env bash
# The locomotion debugging view (locomote --overlay, view TRACE.jsonl --overlay).
# - The trace's overlay fields: present on every line of a locomotor walk, the
#   old fields kept; a planted foot stands on one of its two footsteps.
# - One PNG frame with and without --overlay, at a time when the left foot is
#   planted on its `from` footstep: (a) the HUD's rectangle (top-left,
#   LOCO_HUD_X/Y/W of cli/loco_overlay.h) differs, a corner far from
#   everything does not; (b) the pixels of the left leg's exact colour outside
#   the HUD have their centroid within 8 px of that footstep's heel-toe
#   midpoint projected HERE with the camera cli/loco_view.h documents (orbit
#   around the root + 0.85 m, azimuth -75, elevation 8, 4 m, 35-degree field
#   of view), the footstep read from the trace line of that frame;
#   (c) the HUD's cycle cursor moves: two times give different HUDs.
# - view TRACE.jsonl --overlay under Xvfb writes a screenshot whose HUD
#   rectangle differs from view TRACE.jsonl without it; O toggles it.
# Without xvfb-run or SDL2: tests/lib.sh's rule (a failure under CI).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # tests/png_read.py
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian: python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

path="0,0 0,5"
"$SK_CLI" locomote @mannequin --terrain stairs --path "$path" --speed 1.2 --trace "$tmp/t.jsonl" >/dev/null

# The trace, and a frame k of the 25 frames/s recording (--at T = (k + 0.5) / 25
# draws it; it is the first 60 Hz trace line at or after k / 25 s, line
# ceil(2.4 k), k not a multiple of 5 so that no rounding decides) at which the
# left foot is planted on the same footstep (the one of "from" and "to"
# within 5 mm of its heel: "from" until its cycle wraps at its stance time,
# "to" from landing to then) while the character walks; the first such frame
# on "from" if there is one. Prints T, the line's time and which footstep.
T=$(python3 - "$tmp/t.jsonl" <<'PY'
import json, math, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) > 100, len(lines)
first = lines[0]
assert isinstance(first.get("parents"), list) and len(first["parents"]) == len(first["joints"]), "parents"
assert first.get("terrain") == "stairs" and first.get("path") == [[0, 0], [0, 5]], (first.get("terrain"), first.get("path"))
dist = lambda a, b: math.dist(a, b)
for d in lines:
    for k in ("t", "root", "feet", "joints", "velocity", "mode", "phase", "weights", "moving"):
        assert k in d, "line without %s" % k
    assert d["mode"] in ("standing", "moving", "stopping")
    assert abs(sum(d["weights"].values()) - 1) < 1e-3, d["weights"]
    for f in d["feet"]:
        for k in ("leg", "heel", "toe", "ankle", "stance", "grounded", "cycle_time", "from", "to", "keys"):
            assert k in f, "foot without %s" % k
        assert 0 <= f["cycle_time"] < 1
        if f["stance"]:  # planted: on one of its footsteps (their heel is the foot's footbase)
            near = min(dist(f["heel"], f["from"]["heel"]), dist(f["heel"], f["to"]["heel"]))
            assert near < 0.01, "t %.3f %s: planted %.3f m from both footsteps" % (d["t"], f["leg"], near)
by_t = {round(d["t"] * 60): d for d in lines}
def planted_on(i):
    d = by_t.get(i)
    if not d: return None
    f = d["feet"][0]
    if f["leg"] != "left" or not f["stance"] or d["mode"] != "moving": return None
    for key in ("from", "to"):
        if dist(f["heel"], f[key]["heel"]) < 0.005: return key, tuple(f[key]["heel"])
    return None
found = None
for k in range(30, 125):
    if k % 5 == 0: continue
    i = math.ceil(2.4 * k)
    on = planted_on(i)
    if on and (not found or on[0] == "from"):
        found = (k, i, on[0])
        if on[0] == "from": break
if not found: sys.exit("no frame with the left foot planted")
k, i, key = found
print("%.4f %.6f %s" % ((k + 0.5) / 25, by_t[i]["t"], key))
PY
)
read -r T TL KEY <<<"$T"
echo "--at $T: the trace line t = $TL s, the left foot planted on its \"$KEY\" footstep"
T2=$(python3 -c "print($T + 0.2)")
common=(@mannequin --terrain stairs --path "$path" --speed 1.2 --size 480x360)
"$SK_CLI" locomote "${common[@]}" --out "$tmp/plain.png" --at "$T" >/dev/null
"$SK_CLI" locomote "${common[@]}" --out "$tmp/over.png" --at "$T" --overlay >/dev/null
"$SK_CLI" locomote "${common[@]}" --out "$tmp/over2.png" --at "$T2" --overlay >/dev/null
"$SK_CLI" locomote "${common[@]}" --out "$tmp/over.gif" --seconds 1 --overlay >/dev/null 2>&1
test -s "$tmp/over.gif" || fail "no GIF"

cat >"$tmp/png.py" <<'PY'
from png_read import decode
def differ(a, b, x0, y0, x1, y1, tol=30):
    n = sum(1 for y in range(y0, y1) for x in range(x0, x1) if max(abs(p - q) for p, q in zip(a[y][x], b[y][x])) > tol)
    return n, (x1 - x0) * (y1 - y0)
PY

python3 - "$tmp" "$TL" "$KEY" <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[1])
from png import decode, differ
tmp, T, key = sys.argv[1], float(sys.argv[2]), sys.argv[3]
w, h, plain = decode(tmp + "/plain.png")
_, _, over = decode(tmp + "/over.png")
_, _, over2 = decode(tmp + "/over2.png")
assert (w, h) == (480, 360)
# (a) the HUD: at (6, 6), 210 wide, at least 60 high with 2 legs and 2 clips.
n, tot = differ(plain, over, 6, 6, 216, 66)
print("HUD rectangle: %d of %d pixels differ" % (n, tot))
assert n > 0.8 * tot, "the HUD is not drawn"
n, tot = differ(plain, over, 440, 0, 480, 30)
assert n == 0, "%d pixels differ in the top-right corner, far from every overlay" % n
# (c) the cursor moved: the HUDs of T and T + 0.2 s differ.
n, _ = differ(over, over2, 6, 6, 216, 66)
print("HUD at T and T + 0.2 s: %d pixels differ" % n)
assert n > 20, "the HUD did not change"
# (b) the left foot's footstep: the trace line of the frame drawn.
line = [d for d in map(json.loads, open(tmp + "/t.jsonl")) if abs(d["t"] - T) < 1e-4][0]
foot = line["feet"][0]
mid = [(a + b) / 2 for a, b in zip(foot[key]["heel"], foot[key]["toe"])]
# The camera of cli/loco_view.h, computed here: look-at and perspective as OpenGL's.
tgt = [line["root"][0], line["root"][1] + 0.85, line["root"][2]]
az, el, dist, fov = math.radians(-75), math.radians(8), 4.0, math.radians(35)
eye = [tgt[0] + dist * math.cos(el) * math.sin(az), tgt[1] + dist * math.sin(el), tgt[2] + dist * math.cos(el) * math.cos(az)]
sub = lambda a, b: [p - q for p, q in zip(a, b)]
dot = lambda a, b: sum(p * q for p, q in zip(a, b))
cross = lambda a, b: [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
norm = lambda a: [p / math.sqrt(dot(a, a)) for p in a]
fwd = norm(sub(tgt, eye)); right = norm(cross(fwd, [0, 1, 0])); up = cross(right, fwd)
rel = sub(mid, eye)
xc, yc, zc = dot(rel, right), dot(rel, up), dot(rel, fwd)
f = 1 / math.tan(fov / 2)
px = (f / (w / h) * xc / zc * 0.5 + 0.5) * w
py = (1 - (f * yc / zc * 0.5 + 0.5)) * h
want = (230, 38, 191)
pts = [(x + 0.5, y + 0.5) for y in range(h) for x in range(w)
       if not (x < 220 and y < 140) and max(abs(p - q) for p, q in zip(over[y][x], want)) <= 45]
assert len(pts) >= 20, "only %d pixels of the left leg's colour" % len(pts)
cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
err = math.hypot(cx - px, cy - py)
print("left footstep: %d pixels, centroid (%.1f, %.1f), projected (%.1f, %.1f): %.1f px apart" % (len(pts), cx, cy, px, py, err))
assert err < 8, "the footstep marker is %.1f px from where the footstep projects" % err
# Nothing in that colour without the overlay.
assert not any(max(abs(p - q) for p, q in zip(plain[y][x], want)) <= 45 for y in range(h) for x in range(w)), \
    "the left leg's colour is in the frame without the overlay"
PY

# (c) The window: view TRACE.jsonl with and without --overlay, and O.
sk_need_cmd xvfb-run "Debian: xvfb xauth"
view_usage=$("$SK_CLI" view 2>&1 || true)
if grep -q "without SDL2" <<<"$view_usage"; then
  sk_missing "skelanim was built without SDL2 (Debian: libsdl2-dev): no viewer to test"
fi
export SDL_AUDIODRIVER=dummy
xvfb() { xvfb-run -a -s "-screen 0 1024x768x24" "$@"; }
xvfb "$SK_CLI" view "$tmp/t.jsonl" --overlay --frames 40 --size 480x360 --screenshot "$tmp/v_over.png" >/dev/null
xvfb "$SK_CLI" view "$tmp/t.jsonl" --frames 40 --size 480x360 --screenshot "$tmp/v_plain.png" >/dev/null
xvfb "$SK_CLI" view "$tmp/t.jsonl" --overlay --frames 3 --size 320x240 --print-state --keys o,o >"$tmp/state.txt"
grep -q "^frame 0 .* overlay on$" "$tmp/state.txt" || fail "view --overlay: not on at the start"
grep -q "^frame 1 .* overlay off$" "$tmp/state.txt" || fail "view: o did not turn the overlay off"
grep -q "^frame 2 .* overlay on$" "$tmp/state.txt" || fail "view: o did not turn the overlay back on"
python3 - "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from png import decode, differ
w, h, a = decode(sys.argv[1] + "/v_over.png")
_, _, b = decode(sys.argv[1] + "/v_plain.png")
assert (w, h) == (480, 360)
n, tot = differ(a, b, 6, 6, 216, 66)
print("view: HUD rectangle %d of %d pixels differ" % (n, tot))
assert n > 0.8 * tot, "view --overlay drew no HUD"
PY
# Bad traces: a clear error, no crash.
printf '{"t":0}\n' >"$tmp/bad.jsonl"
if xvfb "$SK_CLI" view "$tmp/bad.jsonl" --frames 1 2>"$tmp/err.txt"; then fail "view accepted a bad trace"; fi
grep -q "not a locomote --trace line" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "bad trace: unclear error"; }
printf 'nope\n' >"$tmp/bad2.jsonl"
if xvfb "$SK_CLI" view "$tmp/bad2.jsonl" --frames 1 2>"$tmp/err.txt"; then fail "view accepted a non-JSON trace"; fi
grep -q "line 1: not a JSON object" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "non-JSON trace: unclear error"; }
if "$SK_CLI" locomote @mannequin --procedural --out "$tmp/x.png" --overlay 2>"$tmp/err.txt"; then
  fail "--overlay accepted with --procedural"
fi
grep -q "overlay" "$tmp/err.txt" || fail "--overlay --procedural: unclear error"
sk_done cli_overlay
