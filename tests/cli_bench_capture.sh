#!/usr/bin/env bash
# Captured walks and runs on other characters: `skelanim locomote CHARACTER --from FILE[:CLIP]`
# and the capture rows of `skelanim bench locomotion` (the CMU walk 02_01 and run 09_11 of
# ../shared retargeted onto the mannequin and CesiumMan).
#
#  1. locomote --from: its errors (a CMU .bvh without --from-scale, a clip that is not there,
#     a missing file, --from-scale alone), and the skate of its --json against the skate
#     computed here from its --trace (the ground is y = 0).
#  2. bench locomotion --captures ci --captures-only: the rows expected (2 characters x
#     02_01 walking on flat, stairs and the course, and 09_11 running on flat: 8 rows; 02_01
#     played in reverse walking backward on flat and stairs at 1.4 m/s: 4 rows; with the
#     mannequin's strafes retargeted, sideways to the left and right on flat and stairs at
#     1.0 m/s: 8 rows), the
#     cost row, and without the data a "missing" row. Then the limits, asserted from the rows:
#     slide < 0.5 cm per stance, contact < 1 cm, penetration < 1 cm, stance share per foot at
#     full speed 30-60 % (walks, 0.8-1.5 m/s) and 15-40 % (runs), skate <= 0.15 (walks), and the
#     body at least 0.6 of its standing height above the planted feet (body_low: ours, not the
#     issue's; the hips pulled to the floor for a foot out of reach passed every other limit).
#     The hard cases with 02_01 and 09_11 at 1.0 m/s (8 rows: turning in place, a 180 degree
#     turn within a second, sidestepping, stopping mid-stride): slide, contact, penetration,
#     skate within the same limits, each row's "fails" recomputed.
#  3.-5. the held-out rows (tests/data/cmu halves, --half, --character).
#  6. a capture whose best cycle walks back towards -Z (CMU 03_04): turned to walk along +Z, and
#     played as the walk (its blend weight, read from the trace).
#
# NOT MET YET (the limits stay): the targets in OPEN below, each with the value it had when it
# was written down as a bound it must not exceed (a floor for a stance share): printed as OPEN,
# not hidden, and not allowed to grow; any other target missed fails. The rows list what they
# miss ("fails"). docs/locomotion.md ("Clips from captures on any character") has the table.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian package python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

shared=$(sk_shared_dir) || sk_missing "../shared (SK_SHARED_DIR) is absent: the CMU captures and CesiumMan"
bvh="$shared/mocap/bvh"
for f in "$bvh/02_01.bvh" "$bvh/09_11_fbx2bvh.bvh" "$shared/assets/gltf/CesiumMan/CesiumMan.glb"; do
  [[ -f "$f" ]] || sk_missing "$f is absent"
done

# 1. locomote --from: errors
expect_error() { # expect_error "message part" ARGS...
  local want=$1; shift
  if "$SK_CLI" locomote "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"; then fail "locomote $* succeeded"; fi
  grep -qF -- "$want" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "locomote $*: expected '$want'"; }
}
expect_error "give --from-scale (metres per unit: 0.056444 for a CMU capture)" @mannequin --from "$bvh/02_01.bvh"
expect_error "no such clip" @mannequin --from "$bvh/02_01.bvh:walkies" --from-scale 0.056444
expect_error "cannot open" @mannequin --from "$tmp/none.bvh"
expect_error "--from-scale goes with --from" @mannequin --from-scale 0.056444
expect_error "applies to .bvh files only" @mannequin --from "$shared/mocap/glb/02_01.glb" --from-scale 0.056444

# the skate of the JSON against the trace's
"$SK_CLI" locomote @mannequin --from "$bvh/02_01.bvh:0" --from "$bvh/09_11_fbx2bvh.bvh" --from-scale 0.056444 \
  --path "0,0 0,5" --json --trace "$tmp/t.jsonl" >"$tmp/m.json" || fail "locomote --from"
python3 - "$tmp/m.json" "$tmp/t.jsonl" <<'PY'
import json, math, sys
m = json.loads(open(sys.argv[1]).read())
frames = [json.loads(l) for l in open(sys.argv[2])]
assert len(frames) == m["frames"], (len(frames), m["frames"])
dt = frames[1]["t"] - frames[0]["t"]
low = fast = 0
prev = {}
for fr in frames:
    for f in fr["feet"]:
        h, t = f["heel"], f["toe"]
        p, name = (h, "heel") if h[1] <= t[1] else (t, "toe")
        if f["leg"] in prev and p[1] < 0.02:
            q = prev[f["leg"]][name]
            low += 1
            fast += math.hypot(p[0] - q[0], p[2] - q[2]) > 0.30 * dt
        prev[f["leg"]] = {"heel": h, "toe": t}
ref = fast / low
assert abs(low - m["skate_frames"]) <= 2, (low, m["skate_frames"])  # the trace rounds to 0.01 mm
# a planted foot stands on its lower point: heel and toe often at one height, where the
# trace's rounding may pick the other point (and a speed at the threshold may round over it):
# two leg-frames either way
assert abs(ref - m["skate"]) <= 2.5 / low, (ref, m["skate"], low)
assert m["path_finished"] and all(math.isfinite(v) for v in m["end"]), m
print("locomote --from: skate %.4f over %d leg-frames, the trace's %.4f" % (m["skate"], low, ref))
PY

# --from-reversed: the walk played in reverse walks the path facing back. From the trace, checked
# here: at full speed the reversed clip carries the blend, the character moves along the path
# (+Z) while its body faces -Z (yaw pi), and each foot, while flagged in stance, moves against
# the body's own forward axis at no point (its heel-toe line points along the facing, -Z).
expect_error "at most" @mannequin --from-reversed "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" \
  --from-reversed "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" \
  --from-reversed "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" \
  --from-reversed "$bvh/02_01.bvh" --from-scale 0.056444
"$SK_CLI" locomote @mannequin --from "$bvh/02_01.bvh" --from-reversed "$bvh/02_01.bvh" --from "$bvh/09_11_fbx2bvh.bvh" \
  --from-scale 0.056444 --face 180 --speed 1.2 --path "0,0 0,6" --json --trace "$tmp/b.jsonl" >"$tmp/bm.json" \
  || fail "locomote --from-reversed"
python3 - "$tmp/bm.json" "$tmp/b.jsonl" <<'PY'
import json, math, sys
m = json.loads(open(sys.argv[1]).read())
frames = [json.loads(l) for l in open(sys.argv[2])]
cruise = [f for f in frames if f["moving"] > 0.99 and abs(f["velocity"][2] - 1.2) < 0.01]
assert len(cruise) > 100, len(cruise)
for f in cruise:
    assert f["weights"]["02_01 reversed"] > 0.9, f["weights"]
    assert abs(abs(f["yaw"]) - math.pi) < 1e-3, f["yaw"]
    for ft in f["feet"]:
        if ft["stance"]:
            assert ft["toe"][2] < ft["heel"][2], ft  # the foot points the way the body faces: -Z
assert m["path_finished"] and m["slide_max_cm"] < 0.5, m
print("locomote --from-reversed: %d frames at full speed walking backward, slide %.3f cm" % (len(cruise), m["slide_max_cm"]))
PY

# 2. bench locomotion: without the data the rows say so
"$SK_CLI" bench locomotion --captures ci --captures-only --data "$tmp/nothing" --count 5 --frames 2 >"$tmp/none.jsonl" \
  2>"$tmp/none.err" || fail "bench locomotion without the data"
grep -q '"missing"' "$tmp/none.jsonl" || fail "bench locomotion without the data: no \"missing\" row"

"$SK_CLI" bench locomotion --captures ci --captures-only --data "$shared" --count 20 --frames 10 >"$tmp/b.jsonl" \
  || fail "bench locomotion --captures ci"
python3 - "$tmp/b.jsonl" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert not any("missing" in r for r in rows), rows
assert not any("error" in r for r in rows), [r for r in rows if "error" in r]
scen = [r for r in rows if r["bench"] == "locomotion_capture" and "hard" not in r]
hard = [r for r in rows if r["bench"] == "locomotion_capture" and "hard" in r]
cost = [r for r in rows if r["bench"] == "locomotion_capture_cost"]
want = {(c, "walk", t, "forward") for c in ("mannequin", "CesiumMan") for t in ("flat", "stairs:0.17,0.28", "course")}
want |= {(c, "run", "flat", "forward") for c in ("mannequin", "CesiumMan")}
want |= {(c, "walk", t, d) for c in ("mannequin", "CesiumMan") for t in ("flat", "stairs:0.17,0.28")
         for d in ("backward", "left", "right")}
got = {(r["character"], r["gait"], r["terrain"], r.get("direction", "forward")) for r in scen}
assert len(scen) == 20 and got == want, (len(scen), got ^ want)  # the cases checked
assert all(r["speed"] == {"backward": 1.4, "left": 1.0, "right": 1.0}[r["direction"]] for r in scen if "direction" in r), scen
# the hard cases with the captures: 4 maneuvers at 1.0 m/s (turning in place at 0) per character
want_hard = {(c, h) for c in ("mannequin", "CesiumMan") for h in ("turn-in-place", "turn-180", "sidestep", "stop-mid-stride")}
assert len(hard) == 8 and {(r["character"], r["hard"]) for r in hard} == want_hard, hard  # the cases checked
for r in hard:
    kinds = set()
    if r["slide_max_cm"] >= 0.5: kinds.add("slide")
    if r["contact_max_cm"] >= 1: kinds.add("contact")
    if r["penetration_max_cm"] >= 1: kinds.add("penetration")
    if r["skate"] > 0.15: kinds.add("skate")
    if r["body_low"] < 0.6: kinds.add("body")
    assert sorted(r["fails"]) == sorted(kinds), (r, kinds)
    assert r["stance_runs"] >= 4 and r["skate_frames"] > 100, r  # it stepped, and the skate was measured
    assert not kinds, "hard case %s %s misses %s" % (r["character"], r["hard"], sorted(kinds))
assert len(cost) == 1 and cost[0]["characters"] == 20 and cost[0]["frame_ms_min"] > 0, cost
for r in scen:
    assert r["finished"] and r["stance_runs"] >= 8, r
    # the legs' rest length (the mannequin's 0.85 m, CesiumMan's 0.54 m) and the Froude number from it
    assert (0.80 <= r["leg_m"] <= 0.90) if r["character"] == "mannequin" else (0.50 <= r["leg_m"] <= 0.58), r
    assert abs(r["froude"] - r["speed"] ** 2 / (9.81 * r["leg_m"])) <= 2e-3 * max(1, r["froude"]), r
    for k in ("slide_max_cm", "contact_max_cm", "penetration_max_cm", "skate", "body_low"):
        assert math.isfinite(r[k]), r
    assert 0 < r["body_low"] <= 1, r
# the limits, computed here from the rows; OPEN: (character, gait, limit) -> bound (see the top)
# Empty from 28 Nov 2026 (the planted phase found by stillness, the planted foot's direction
# held) until the body's height joined the limits. It held, before: mannequin walk stance >= 0.25,
# run slide <= 0.65; CesiumMan walk slide <= 0.75 and stance >= 0.22, run slide <= 1.3.
# From the body's height joining the limits (29 Nov 2026) the stairs held it open for CesiumMan
# (a tread is a third of its leg): its sideways walks up 0.17 / 0.28 stairs kept 0.526-0.545 of its
# standing height until the feet's spread along the motion was held to a tenth of the leg's climb
# (30 Nov 2026: 0.79-0.81). The mannequin's forward walk there (0.585) and CesiumMan's backward one
# (0.513) were open until the cycle quickened past the clips' speed and the hips rose at 2 m/s.
OPEN = {}
bad, opened = [], []
def judge(r, limit, value, floor, text, name):
    b = OPEN.get((r["character"], r["gait"], limit))
    if b is not None and (value >= b if floor else value <= b):
        opened.append("%s: %s (open: %s %g)" % (name, text, "at least" if floor else "at most", b))
        return None
    return text
for r in scen:
    run = r["gait"] == "run"
    name = "%s %s%s %s %.1f m/s" % (r["character"], r["capture"], " " + r["direction"] if r.get("direction") else "",
                                    r["terrain"], r["speed"])
    miss, kinds = [], set()
    def add(limit, value, floor, text):
        kinds.add(limit if limit != "stance" else "stance_share")
        m = judge(r, limit, value, floor, text, name)
        if m: miss.append(m)
    if r["slide_max_cm"] >= 0.5: add("slide", r["slide_max_cm"], False, "slide %.3f cm" % r["slide_max_cm"])
    if r["contact_max_cm"] >= 1: add("contact", r["contact_max_cm"], False, "contact %.3f cm" % r["contact_max_cm"])
    if r["penetration_max_cm"] >= 1:
        add("penetration", r["penetration_max_cm"], False, "penetration %.3f cm" % r["penetration_max_cm"])
    lo, hi = (0.15, 0.40) if run else (0.30, 0.60)
    if (run or 0.8 <= r["speed"] <= 1.5) and not all(lo <= s <= hi for s in r["stance_fraction"]):
        text = "stance share %s not in [%.2f, %.2f]" % (r["stance_fraction"], lo, hi)
        if max(r["stance_fraction"]) > hi: kinds.add("stance_share"), miss.append(text)
        else: add("stance", min(r["stance_fraction"]), True, text)
    if not run and r["skate"] > 0.15: add("skate", r["skate"], False, "skate %.3f" % r["skate"])
    if r["body_low"] < 0.6: add("body", r["body_low"], True, "body %.3f of its standing height" % r["body_low"])
    # the row's own list of misses says the same
    assert sorted(r["fails"]) == sorted(kinds), (r["fails"], kinds)
    if miss: bad.append("%s: %s" % (name, "; ".join(miss)))
print("bench locomotion --captures ci: %d rows, cost %.3f ms per frame for %d characters"
      % (len(scen), cost[0]["frame_ms_min"], cost[0]["characters"]))
for o in opened: print("OPEN", o)
if bad:
    print("FAIL: %d of %d capture rows miss the limits beyond the open gaps:\n  %s" % (len(bad), len(scen), "\n  ".join(bad)))
    sys.exit(1)
PY

# 3. The held-out rows (--held-out DIR: the reporting half of tests/data/cmu): every walk and run of
#    split.tsv's reporting half on both characters, each row marked held_out with its metrics, and
#    each row's "fails" recomputed here from its metrics. Their figures are reported
#    (docs/locomotion.md), not held to the limits: no one tuned on these files.
: "${SK_SOURCE_DIR:?}"
"$SK_CLI" bench locomotion --captures none --captures-only --held-out "$SK_SOURCE_DIR/tests/data/cmu" --data "$shared" \
  >"$tmp/held.jsonl" 2>"$tmp/held.err" || { cat "$tmp/held.err"; fail "bench locomotion --held-out"; }
python3 - "$tmp/held.jsonl" "$SK_SOURCE_DIR/tests/data/cmu/split.tsv" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
split = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
walks = [f[0][:-4] for f in split if f[1] == "reporting" and f[2] == "walk"]
runs = [f[0][:-4] for f in split if f[1] == "reporting" and f[2] == "run"]
assert len(walks) >= 5 and len(runs) >= 2, (walks, runs)
# each walk on flat ground, stairs and the course, each run on flat ground, each walk played in reverse
# (backward) on flat ground; two speeds each
want = 2 * (len(walks) * 3 * 2 + len(runs) * 2 + len(walks) * 2)
assert len(rows) == want and all(r.get("held_out") is True for r in rows), (len(rows), want)
got = {(r["character"], r["capture"]) for r in rows}
assert got == {(c, x) for c in ("mannequin", "CesiumMan") for x in walks + runs}, got
back = [r for r in rows if r.get("direction") == "backward"]
assert len(back) == 2 * 2 * len(walks) and all(r["gait"] == "walk" and r["terrain"] == "flat" for r in back), back
ok = 0
for r in rows:
    if "error" in r: continue
    run = r["gait"] == "run"
    kinds = set()
    if r["slide_max_cm"] >= 0.5: kinds.add("slide")
    if r["contact_max_cm"] >= 1: kinds.add("contact")
    if r["penetration_max_cm"] >= 1: kinds.add("penetration")
    lo, hi = (0.15, 0.40) if run else (0.30, 0.60)
    if (run or 0.8 <= r["speed"] <= 1.5) and not all(lo <= s <= hi for s in r["stance_fraction"]): kinds.add("stance_share")
    if not run and r["skate"] > 0.15: kinds.add("skate")
    if r["body_low"] < 0.6: kinds.add("body")
    kinds |= {"finished"} if not r["finished"] else set()
    # a share printed at a limit (0.300) was rounded: the bench judged the unrounded one
    at_limit = (run or 0.8 <= r["speed"] <= 1.5) and any(abs(s - b) <= 5e-4 for s in r["stance_fraction"] for b in (lo, hi))
    if at_limit:  # either verdict is right: take the bench's
        kinds.discard("stance_share")
        if "stance_share" in r["fails"]: kinds.add("stance_share")
    assert sorted(r["fails"]) == sorted(kinds), (r, kinds)
    ok += not kinds
print("bench locomotion --held-out: %d rows (%d walks, %d runs, 2 characters; %d backward), %d within every limit, "
      "%d could not run" % (len(rows), len(walks), len(runs), len(back), ok, sum("error" in r for r in rows)))
PY

# 4. --half tuning: the tuning half's rows instead (tests/data/cmu-walks: every file tuning),
#    marked "half": "tuning" and not held_out; every pair retargets and analyses; and a folder
#    without that half is said, not run empty.
"$SK_CLI" bench locomotion --captures none --captures-only --held-out "$SK_SOURCE_DIR/tests/data/cmu-walks" --half tuning \
  --data "$shared" >"$tmp/tune.jsonl" 2>"$tmp/tune.err" || { cat "$tmp/tune.err"; fail "bench locomotion --half tuning"; }
python3 - "$tmp/tune.jsonl" "$SK_SOURCE_DIR/tests/data/cmu-walks/split.tsv" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
split = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()[1:]]
walks = [f[0][:-4] for f in split if f[1] == "tuning" and f[2] == "walk"]
runs = [f[0][:-4] for f in split if f[1] == "tuning" and f[2] == "run"]
assert (len(walks), len(runs)) == (15, 3), (walks, runs)
want = 2 * (len(walks) * 3 * 2 + len(runs) * 2 + len(walks) * 2)
assert len(rows) == want, (len(rows), want)
assert all(r.get("half") == "tuning" and "held_out" not in r and "error" not in r for r in rows), rows
assert {(r["character"], r["capture"]) for r in rows} == {(c, x) for c in ("mannequin", "CesiumMan") for x in walks + runs}
# CesiumMan's first step onto the stairs with 07_11 at 1.0 m/s landed three treads up while the
# other foot stood on the floor (body 0.258) until the step-edge rule let a falling-back
# prediction return to the lower tread (ground_probe.edge_hysteresis; tests/test_footstep.c)
r = [x for x in rows if (x["character"], x["capture"], x["terrain"], x["speed"]) == ("CesiumMan", "07_11", "stairs:0.17,0.28", 1.0)
     and "direction" not in x]
assert len(r) == 1 and r[0]["body_low"] >= 0.6, r
# CesiumMan with 03_04 (walking to and fro): its cycle was cut over several short steps at the end
# of a turn (the cycle finder now asks for one stride), and once turned (at CesiumMan's Z-up root,
# above the body) the root motion was taken out through the body's parent at rest: planted feet
# slid 30-100 cm. Now every such row holds its feet.
r = [x for x in rows if x["character"] == "CesiumMan" and "03_04" in (x["capture"],) ]
assert len(r) == 3 * 2 + 2, len(r)
assert all(x["slide_max_cm"] < 0.5 and x["penetration_max_cm"] < 1 and x["skate"] <= 0.15 for x in r), r
print("bench locomotion --half tuning: %d rows, %d within every limit" % (len(rows), sum(not r["fails"] for r in rows)))
PY
if "$SK_CLI" bench locomotion --captures none --captures-only --held-out "$SK_SOURCE_DIR/tests/data/cmu-walks" \
     --data "$shared" >"$tmp/none.jsonl" 2>"$tmp/none.err"; then
  fail "a folder with no reporting half was not an error"
fi
grep -q '"missing"' "$tmp/none.jsonl" && grep -q 'no split.tsv with reporting-half walks and runs' "$tmp/none.err" ||
  { cat "$tmp/none.jsonl" "$tmp/none.err"; fail "the missing half was not said"; }

# 5. --character FILE: the held-out rows on another character, named by the file's stem (here the
#    mannequin written as mq.glb, a walk whose rest pose does not stand, tests/data/retarget, and a
#    CMU run); --character without --held-out is an error.
mkdir -p "$tmp/mixed"
ln -s "$SK_SOURCE_DIR/tests/data/retarget/02_02_orients.bvh" "$tmp/mixed/02_02_orients.bvh"
ln -s "$SK_SOURCE_DIR/tests/data/cmu/09_02.bvh" "$tmp/mixed/09_02.bvh"
printf 'file\thalf\tkind\tscale\tfps\n02_02_orients.bvh\treporting\twalk\t0.056444\t30\n09_02.bvh\treporting\trun\t0.056444\t120\n' \
  > "$tmp/mixed/split.tsv"
"$SK_CLI" export-mannequin "$tmp/mq.glb" > /dev/null || fail "export-mannequin"
"$SK_CLI" bench locomotion --captures none --captures-only --held-out "$tmp/mixed" --character "$tmp/mq.glb" \
  --data "$shared" >"$tmp/char.jsonl" 2>"$tmp/char.err" || { cat "$tmp/char.err"; fail "bench locomotion --character"; }
python3 - "$tmp/char.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 3 * 2 + 2 + 2, len(rows)  # the walk on 3 terrains, the run, the walk reversed; 2 speeds each
assert all(r["character"] == "mq" and r.get("held_out") and "error" not in r for r in rows), rows
print("bench locomotion --character: %d rows, %d within every limit" % (len(rows), sum(not r["fails"] for r in rows)))
PY
if "$SK_CLI" bench locomotion --captures none --captures-only --character "$tmp/mq.glb" >/dev/null 2>"$tmp/nochar.err"; then
  fail "--character without --held-out was not an error"
fi
grep -q -- '--character needs --held-out' "$tmp/nochar.err" || { cat "$tmp/nochar.err"; fail "--character without --held-out"; }

# 6. A capture whose best cycle walks the other way: CMU 03_04 (tests/data/cmu-walks) walks to and
#    fro; retargeted onto the mannequin its best cycle comes back towards -Z. locomote --from turns
#    it to walk along +Z (from_turned_deg about 180), so at 1 m/s, about the walk's own speed
#    (1.1 m/s), the blend plays the walk (its weight read from the trace here); before, the walk
#    sat in the blend space as a backward walk and the run played slowly in its place (weight 0.1).
cw="$SK_SOURCE_DIR/tests/data/cmu-walks"
"$SK_CLI" locomote @mannequin --from "$cw/03_04.bvh" --from "$cw/09_08.bvh" --from-scale 0.056444 --speed 1.0 \
  --path "0,0 0,6" --json --trace "$tmp/back.jsonl" >"$tmp/back.json" || fail "locomote --from 03_04"
python3 - "$tmp/back.json" "$tmp/back.jsonl" <<'PY'
import json, statistics, sys
m = json.loads(open(sys.argv[1]).read())
turned = m["from_turned_deg"]
assert len(turned) == 2 and abs(turned[0]) > 150 and abs(turned[1]) < 20, turned
frames = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"t"')]
w = [f["weights"]["03_04"] for f in frames if f.get("moving", 1) and "weights" in f]
assert len(w) > 200, len(w)
med = statistics.median(w)
assert med > 0.8, med
print("03_04 turned %+.1f deg; the walk's weight at 1 m/s: median %.3f over %d frames" % (turned[0], med, len(w)))
# Each foot planted for a walk's share of the moving frames, the two alike: the planted phases are
# widened to the source's own over the same seconds of the capture (before, the source's own best
# cycle, 11 s away, was laid over it: one foot planted 0.67 of the frames, the other 0.33).
share = []
for leg in range(2):
    st = [f["feet"][leg]["stance"] for f in frames if f.get("mode") == "moving"]
    assert len(st) > 200, len(st)
    share.append(sum(st) / len(st))
assert all(0.3 <= s <= 0.6 for s in share) and abs(share[0] - share[1]) < 0.12, share
print("03_04 stance share per foot %.3f %.3f" % tuple(share))
PY
# A capture played in reverse (the backward walk) whose cycle is straight gets no warning: the
# hips' way is taken in the reversed clip's time, as its footprints are.
"$SK_CLI" locomote @mannequin --from-reversed "$cw/07_03.bvh" --from-scale 0.056444 --face 180 --speed 1.0 \
  --path "0,0 0,6" --json >"$tmp/rev.json" 2>"$tmp/rev.err" || { cat "$tmp/rev.err"; fail "locomote --from-reversed 07_03"; }
if grep -q "warning" "$tmp/rev.err"; then cat "$tmp/rev.err"; fail "--from-reversed 07_03 warned"; fi

sk_done cli_bench_capture
