#!/usr/bin/env bash
# skelanim info, sample --json and render on .bvh files (io/bvh.h): the file's
# units, --scale, bones drawn for a file without a mesh, and the reader's
# line-numbered errors through the tool. The reader itself is checked in
# tests/test_bvh.c.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Mesa keeps allocations to process exit (see cli_render_ik.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
data="$SK_SOURCE_DIR/tests/data/bvh"

# The hand-made file: two roots, end sites, the root convention (absolute positions).
"$SK_CLI" info "$data/mixed.bvh" >"$tmp/info.txt"
cat "$tmp/info.txt"
grep -q "^units: as in the file (no --scale)$" "$tmp/info.txt" || fail "no units line"
grep -q "^  scene 0 (unnamed): 2 root nodes 0, 6$" "$tmp/info.txt" || fail "two roots"
grep -q '^nodes: 8 ' "$tmp/info.txt" || fail "8 nodes"
grep -q '"Hand_end"' "$tmp/info.txt" || fail "end site name"
grep -q '^  clip 0 "mixed": 0.080 s, 6 tracks: 3 translation LINEAR, 3 rotation LINEAR$' "$tmp/info.txt" || fail "clip line"

"$SK_CLI" sample "$data/mixed.bvh" --time 0 --json >"$tmp/s.json"
"$SK_CLI" sample "$data/mixed.bvh" --time 0 --scale 0.25 --json >"$tmp/s4.json"
python3 - "$tmp/s.json" "$tmp/s4.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
n = {x["name"]: x for x in a["nodes"]}
assert n["Body"]["local"]["t"] == [20, 40, 60], n["Body"]["local"]["t"]   # absolute, not OFFSET (1 2 3) + values
assert n["Arm"]["local"]["t"] == [4, 70, 0], n["Arm"]["local"]["t"]      # Yposition only: x, z from OFFSET
assert n["Prop"]["local"]["t"] == [1.5, 3.5, 2.5], n["Prop"]["local"]["t"]
for x, y in zip(a["nodes"], b["nodes"]):
    for k in range(3):
        assert abs(y["local"]["t"][k] - 0.25 * x["local"]["t"][k]) <= 1e-6 * abs(x["local"]["t"][k]), (x, y)
        assert abs(y["world"][12 + k] - 0.25 * x["world"][12 + k]) <= 1e-5 * (1 + abs(x["world"][12 + k])), (x, y)
    assert x["local"]["r"] == y["local"]["r"]
print("sample: root convention and --scale ok")
PY

"$SK_CLI" render "$data/mixed.bvh" --time 0.04 --size 96x96 --out "$tmp/m.png" >"$tmp/out.txt"
grep -q "wrote $tmp/m.png (96x96, 1 frame)" "$tmp/out.txt" || fail "no wrote line"
[[ "$(head -c 4 "$tmp/m.png" | tail -c 3)" == PNG ]] || fail "m.png is not a PNG"

# Errors: the reader's message with the file and line, once; exit 1.
bad() { # expected message, then the arguments
  local msg=$1; shift
  if "$SK_CLI" "$@" >"$tmp/o.txt" 2>"$tmp/err.txt"; then fail "accepted: $*"; fi
  grep -qF -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
}
bad "skelanim: $data/frame_short.bvh:20: frame 1 has 8 values, expected 9" info "$data/frame_short.bvh"
bad "skelanim: $data/channels_short.bvh:5: CHANNELS 6 lists 3 channel names" sample "$data/channels_short.bvh" --time 0
bad "skelanim: $data/no_motion.bvh:16: expected MOTION" render "$data/no_motion.bvh" --out "$tmp/x.png"
bad "skelanim: @mannequin: --scale applies to .bvh files only" info @mannequin --scale 2
bad "skelanim: --scale: '0'" sample "$data/mixed.bvh" --time 0 --scale 0
bad "skelanim: --scale: '-1'" render "$data/mixed.bvh" --scale -1 --out "$tmp/x.png"
[[ ! -e "$tmp/x.png" ]] || fail "an image for a rejected file"

# A shared CMU clip: positions in the file's units, or metres with --scale.
if shared=$(sk_shared_dir) && [[ -f "$shared/mocap/bvh/02_01.bvh" ]]; then
  f="$shared/mocap/bvh/02_01.bvh"
  "$SK_CLI" info "$f" --scale 0.0564444 >"$tmp/i2.txt"
  grep -q "^units: 0.0564444 per file unit (--scale)$" "$tmp/i2.txt" || fail "units with --scale"
  grep -q '^  clip 0 "02_01": 2.850 s, 32 tracks: 1 translation LINEAR, 31 rotation LINEAR$' "$tmp/i2.txt" || fail "02_01 clip"
  "$SK_CLI" sample "$f" --time 0 --json >"$tmp/c.json"
  "$SK_CLI" sample "$f" --time 0 --scale 0.0564444 --json >"$tmp/cm.json"
  python3 - "$tmp/c.json" "$tmp/cm.json" "$f" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
lines = open(sys.argv[3]).read().split("\n")
first = [float(v) for v in lines[lines.index("Frame Time: 0.008333") + 1].split()]
t = a["nodes"][0]["local"]["t"]
assert all(abs(t[k] - first[k]) < 1e-5 for k in range(3)), (t, first[:3])   # file units: the channel values
tm = b["nodes"][0]["local"]["t"]
assert all(abs(tm[k] - 0.0564444 * first[k]) < 1e-6 for k in range(3)), (tm, first[:3])
print("02_01 hips at t = 0: %s units, %s m" % (t, tm))
PY
  # analyze and convert take --scale too: metres for the analysis, a .glb in metres
  "$SK_CLI" analyze "$f" --scale 0.0564444 >"$tmp/a.txt"
  grep -Eq '^cycle: [0-9.]+ m/cycle, 1\.[0-9]+ m/s' "$tmp/a.txt" || { cat "$tmp/a.txt"; fail "02_01 walk not about 1 m/s"; }
  "$SK_CLI" convert "$f" "$tmp/w.glb" --scale 0.0564444 >/dev/null
  "$SK_CLI" sample "$tmp/w.glb" --time 0 --json >"$tmp/g.json"
  python3 - "$tmp/cm.json" "$tmp/g.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
wa = {n["name"]: n["world"][12:15] for n in a["nodes"]}
wb = {n["name"]: n["world"][12:15] for n in b["nodes"]}
assert set(wa) == set(wb), set(wa) ^ set(wb)
worst = max(abs(wa[k][i] - wb[k][i]) for k in wa for i in range(3))
assert worst < 1e-6, worst
print("convert --scale: the .glb gives the same world positions (worst %.2g m)" % worst)
PY
  "$SK_CLI" render "$f" --scale 0.0564444 --frames 4 --fps 30 --size 96x96 --out "$tmp/w.gif" >"$tmp/out.txt"
  [[ "$(head -c 6 "$tmp/w.gif")" == GIF89a ]] || fail "w.gif is not a GIF"
else
  sk_missing_part "../shared/mocap/bvh/02_01.bvh is absent"
fi
# convert FILE OUT.bvh: the written file reads back (info), the sampling and scale said on stderr,
# a refusal exits 1 and writes nothing, .bvh-only options refused for a .glb
"$SK_CLI" convert @mannequin --clip walk "$tmp/m.bvh" >"$tmp/out" 2>"$tmp/err" || fail "convert to .bvh failed"
grep -q "wrote $tmp/m.bvh (22 joints" "$tmp/out" || fail "convert to .bvh: no summary"
"$SK_CLI" info "$tmp/m.bvh" >/dev/null || fail "the written .bvh does not read"
"$SK_CLI" convert @mannequin --clip walk --euler ZXY "$tmp/z.bvh" >/dev/null || fail "--euler ZXY failed"
[[ $(grep -c "Zrotation Xrotation Yrotation" "$tmp/z.bvh") -eq 22 ]] || fail "--euler ZXY: not every joint in ZXY"
set +e
"$SK_CLI" convert @mannequin --clip nosuch "$tmp/n.bvh" >/dev/null 2>"$tmp/err"; rc=$?
"$SK_CLI" convert @mannequin --euler XYZ "$tmp/n.glb" >/dev/null 2>"$tmp/err2"; rc2=$?
set -e
[[ $rc -ne 0 && ! -e "$tmp/n.bvh" ]] || fail "convert --clip nosuch: exit $rc"
[[ $rc2 -eq 1 ]] && grep -q "applies to a .bvh output only" "$tmp/err2" || fail "--euler with a .glb output not refused"

# Blank frames (every channel 0: what capture exports write where nothing was recorded) are
# listed by info as ranges of frame indices; a frame that is not all zeros is not, nor is a
# file without them (mixed.bvh above).
grep -q 'blank' "$tmp/info.txt" && fail "mixed.bvh has no blank frame, info says it has"
python3 - "$tmp/blank.bvh" <<'PY'
import sys
rows = ["1 2 3 10 20 30 5", "0 0 0 0 0 0 0", "0 0 0 0 0 0 0", "0 0 0 0 0 0 0.5", "4 5 6 0 0 0 0", "0 0 0 0 0 0 0"]
open(sys.argv[1], "w").write(
    "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    " JOINT Leg\n {\n  OFFSET 0 -1 0\n  CHANNELS 1 Xrotation\n  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\n"
    "MOTION\nFrames: %d\nFrame Time: 0.1\n%s\n" % (len(rows), "\n".join(rows)))
PY
"$SK_CLI" info "$tmp/blank.bvh" >"$tmp/blank.txt" || fail "info blank.bvh"
grep -q '^    3 of 6 frames blank (every channel 0: .*): 1-2, 5$' "$tmp/blank.txt" || { cat "$tmp/blank.txt"; fail "blank frames 1-2, 5"; }
"$SK_CLI" info "$tmp/blank.bvh" --scale 0.01 | grep -q '3 of 6 frames blank' || fail "blank frames with --scale"
python3 - "$tmp/blank.bvh" "$tmp/many.bvh" <<'PY'
import sys
head, _ = open(sys.argv[1]).read().split("MOTION")
rows = ["0 0 0 0 0 0 0" if i % 2 else "1 0 0 0 0 0 0" for i in range(20)]
open(sys.argv[2], "w").write(head + "MOTION\nFrames: 20\nFrame Time: 0.1\n" + "\n".join(rows) + "\n")
PY
"$SK_CLI" info "$tmp/many.bvh" | grep -q '^    10 of 20 frames blank (.*): 1, 3, 5, 7, 9, 11, 13, 15, \.\.\.$' || fail "at most 8 ranges"
"$SK_CLI" info "$SK_SOURCE_DIR/tests/data/cmu/07_12.bvh" --scale 0.056444 >"$tmp/cmu.txt"
grep -q '^    1 of 263 frames blank (.*): 0$' "$tmp/cmu.txt" || { tail -2 "$tmp/cmu.txt"; fail "07_12's blank first frame"; }
echo "info: blank frames listed (3 of 6 in a made file, 07_12's first), none in mixed.bvh"

# The other commands fill them from the recorded frames around them, and say so on stderr: frames
# 1-2 of blank.bvh lie between frame 0 (hips at 1 2 3) and frame 3 (0 0 0 ...), frame 5 after
# frame 4 (4 5 6) takes frame 4's pose (sampled half way between them, 0.45 s: the clip ends at
# frame 5 and repeats); info keeps them as written (above).
for t in 0.1 0.2 0.45; do
  "$SK_CLI" sample "$tmp/blank.bvh" --time $t >"$tmp/s$t.json" 2>"$tmp/s$t.err" || fail "sample blank.bvh --time $t"
done
grep -q 'warning: .*blank.bvh: 3 of 6 frames blank (.*): 1-2, 5; filled from the recorded frames around them' "$tmp/s0.1.err" ||
  { cat "$tmp/s0.1.err"; fail "sample: no warning that blank frames were filled"; }
python3 - "$tmp" <<'PY' || fail "filled blank frames are not the lerp of their neighbours"
import json, sys
d = sys.argv[1]
hips = {t: json.load(open("%s/s%s.json" % (d, t)))["nodes"][0]["local"]["t"] for t in ("0.1", "0.2", "0.45")}
# frames 0 and 3: (1, 2, 3) and (0, 0, 0) (frame 3's only non-zero channel is the leg's)
for t, u in (("0.1", 1 / 3), ("0.2", 2 / 3)):
    want = [1 + (0 - 1) * u, 2 + (0 - 2) * u, 3 + (0 - 3) * u]
    assert all(abs(a - b) < 1e-5 for a, b in zip(hips[t], want)), (t, hips[t], want)
assert all(abs(a - b) < 1e-6 for a, b in zip(hips["0.45"], [4, 5, 6])), hips["0.45"]
PY
echo "sample: blank frames filled (lerped between frames 0 and 3, frame 5 held from 4) and said on stderr"

sk_done cli_bvh
