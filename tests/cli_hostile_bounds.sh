#!/usr/bin/env bash
# Hostile input through the tool, second round (docs/robustness.md, "Second
# review"): inputs of a few hundred bytes that made `compress` take minutes and
# gigabytes end at once with a message naming the limit and its option; a
# failed compress job leaks nothing (the ASan build runs this with leak
# detection on); paths that return on themselves are walked to their end; a
# wall is reported, not counted as a walk; a run that ends early says so;
# `convert` refuses to write what the reader refuses.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd python3 "scripts/setup.sh --test"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"

# --- b1: work bounded by the input -----------------------------------------
python3 - "$tmp" <<'PY'
import base64, json, struct, sys
def gltf(path, times, n):
    inp = struct.pack('<%df' % len(times), *times)
    out = b''.join(struct.pack('<4f', 0, 0, 0, 1) for _ in times)
    buf = inp + out
    nodes = [{"name": "j%d" % i} for i in range(n)]
    for i in range(n - 1): nodes[i]["children"] = [i + 1]
    json.dump({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
        "buffers": [{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.b64encode(buf).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(inp)},
                        {"buffer": 0, "byteOffset": len(inp), "byteLength": len(out)}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": len(times), "type": "SCALAR",
                       "min": [min(times)], "max": [max(times)]},
                      {"bufferView": 1, "componentType": 5126, "count": len(times), "type": "VEC4"}],
        "animations": [{"name": "long", "samplers": [{"input": 0, "output": 1}],
                        "channels": [{"sampler": 0, "target": {"node": i, "path": "rotation"}} for i in range(n)]}]},
        open(path, "w"))
d = sys.argv[1]
gltf(d + "/shared60.gltf", [0, 1 / 30, 300000], 60)  # 60 channels sharing one sampler
# 3 keys over 300,000 s, on a grid of 1/30 s (keys on a 1 s grid would be compressed at 1 fps since
# the compressor stores irregular keys on their own grid: 300,001 frames, within the work limit)
gltf(d + "/three_keys.gltf", [0, 1 / 30, 300000], 1)
PY
cat >"$tmp/long_frame.bvh" <<'EOF'
HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 25e6
0 0 0 0 0 0 0 0 0
1 0 0 10 0 0 5 0 0
EOF
# Each ends within 20 s and a few hundred MB of resident memory (the review:
# minutes, gigabytes), exit 1, one message naming the limit and the option; no
# .skc written. (Peak resident size from the kernel's rusage of the child: a
# ulimit on address space would stop AddressSanitizer's shadow reservation.)
maxrss_mb=200
[[ "${SK_CFLAGS:-}" == *sanitize* ]] && maxrss_mb=600
bounded() { # label, args...
  local label=$1
  shift
  python3 - "$tmp" "$maxrss_mb" "$label" "$SK_CLI" "$@" <<'PY' || fail "$label"
import resource, subprocess, sys
tmp, limit, label, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
with open(tmp + "/out", "w") as o, open(tmp + "/err", "w") as e:
    try:
        rc = subprocess.run(["bash"] + cmd if cmd[0].endswith(".sh") else cmd, stdout=o, stderr=e, timeout=20).returncode
    except subprocess.TimeoutExpired:
        sys.exit("%s: still running after 20 s" % label)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
err = open(tmp + "/err").read()
if rc != 1: sys.exit("%s: exit %d, expected 1\n%s" % (label, rc, err))
if peak > limit: sys.exit("%s: %.0f MB resident, expected under %.0f" % (label, peak, limit))
if "work limit" not in err or "--max-work" not in err: sys.exit("%s: no message naming the work limit and --max-work\n%s" % (label, err))
PY
}
bounded "b1 shared sampler" compress "$tmp/shared60.gltf" -o "$tmp/skc"
bounded "b1 three keys" compress "$tmp/three_keys.gltf" -o "$tmp/skc"
# a frame time of days: --fps 0.1 is above the clip's own rate, which the compressor never
# resamples up to (docs/compression.md): kept at its own keys, quickly, instead of refused
timeout 20 "$SK_CLI" compress "$tmp/long_frame.bvh" --fps 0.1 -o "$tmp/skc" >"$tmp/out" 2>"$tmp/err" \
  || { cat "$tmp/err"; fail "b1 frame time: not compressed at its own rate within 20 s"; }
rm -f "$tmp/skc/long_frame.skc"
[[ ! -e "$tmp/skc/shared60.skc" && ! -e "$tmp/skc/three_keys.skc" ]] || fail "b1: a .skc was written for a refused clip"
# the option raises the limit: 3 keys over 300,000 s at 4 fps (1,200,001 frames) go through with it
"$SK_CLI" compress "$tmp/three_keys.gltf" --fps 4 -o "$tmp/skc" >"$tmp/out" 2>"$tmp/err" && fail "b1: 4 fps passed the default limit"
"$SK_CLI" compress "$tmp/three_keys.gltf" --fps 4 --max-work 1.3e6 -o "$tmp/skc" >"$tmp/out" 2>"$tmp/err" \
  || { cat "$tmp/err"; fail "b1: --max-work 1.3e6 did not raise the limit"; }
[[ -s "$tmp/skc/three_keys.skc" ]] || fail "b1: --max-work: no .skc"
# a run where no clip was compressed prints no ratio
if grep -q "ratio 0.00" "$tmp/out"; then fail "b1: a ratio of 0.00:1 printed"; fi

# --- b2: a failed job leaks nothing (LeakSanitizer in the ASan build) ---------
set +e
"$SK_CLI" compress "$tmp/shared60.gltf" "$tmp/three_keys.gltf" -o "$tmp/skc2" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/err"; fail "b2: exit $rc, expected 1"; }
if grep -q "LeakSanitizer" "$tmp/err"; then cat "$tmp/err"; fail "b2: a failed compress job leaks"; fi

# --- b3: paths walked by their length, runs that end early said so -------------
walk() { # path, expected end x, z, expected walked length (m); extra args
  local path=$1 x=$2 z=$3 len=$4
  shift 4
  "$SK_CLI" locomote @mannequin --path "$path" --json "$@" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "b3 $path: failed"; }
  python3 - "$tmp/out" "$path" "$x" "$z" "$len" <<'PY' || fail "b3 $path $*"
import json, sys
d = json.load(open(sys.argv[1]))
x, z, length = map(float, sys.argv[3:6])
ex, _, ez = d["end"]
assert d["path_finished"], "%s: not finished" % sys.argv[2]
assert abs(ex - x) < 0.1 and abs(ez - z) < 0.1, "%s: ends at (%g, %g), expected (%g, %g)" % (sys.argv[2], ex, ez, x, z)
assert abs(d["path_length_m"] - length) < 1e-3, d["path_length_m"]
# walking 16 m at 1.4 m/s takes more than 11 s: the run is not a second of standing
assert d["seconds"] > length / 1.4, "%s: %g s for %g m" % (sys.argv[2], d["seconds"], length)
PY
}
walk "0,0 0,8 0,0" 0 0 16
walk "0,0 0,8 8,8 8,0 0,0" 0 0 32
walk "0,0 0,8 0,2" 0 2 14
walk "0,0 0,8 0,0" 0 0 16 --procedural
walk "0,0 0,8 0,0" 0 0 16 --procedural --backward
# a path longer than the longest run: a warning and the JSON says how far it got
"$SK_CLI" locomote @mannequin --path "0,0 0,100000" --json >"$tmp/out" 2>"$tmp/err" || fail "b3 long path: failed"
grep -q "warning: the run ended after 600.0 s" "$tmp/err" || { cat "$tmp/err"; fail "b3 long path: no warning"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["path_finished"] and 100 < d["path_walked_m"] < 2000, d' "$tmp/out" \
  || fail "b3 long path: path_finished/path_walked_m wrong"
# a jump after the run: refused when --seconds says so, else a warning and "jumped": false
set +e
"$SK_CLI" locomote @mannequin --procedural --jump 100 --seconds 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "the jump would never happen" "$tmp/err" || fail "b3 jump after --seconds: exit $rc"
"$SK_CLI" locomote @mannequin --procedural --jump 100 --json >"$tmp/out" 2>"$tmp/err" || fail "b3 late jump: failed"
grep -q "before the jump" "$tmp/err" || fail "b3 late jump: no warning"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["jumped"] is False' "$tmp/out" || fail "b3 late jump: jumped not false"
set +e
"$SK_CLI" locomote @mannequin --path "0,0 0,0.00005" >"$tmp/out" 2>"$tmp/err"
set -e
grep -q "the same" "$tmp/err" && fail "b3: a 0.05 mm path is said to have equal points"
grep -q "mm long" "$tmp/err" || { cat "$tmp/err"; fail "b3: a too short path is not said so"; }

# --- b4: walls are not walks ------------------------------------------------
for t in ramp:89.9 stairs:10,10; do
  "$SK_CLI" locomote @mannequin --terrain "$t" --json >"$tmp/out" 2>"$tmp/err" || fail "b4 $t: failed"
  grep -q "more than the character can climb" "$tmp/err" || { cat "$tmp/err"; fail "b4 $t: no warning"; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["penetration_max_cm"] > 100 and d["unreached"] > 0, d' \
    "$tmp/out" || fail "b4 $t: reported as a walk"
done
# the ground it can walk stays clean
"$SK_CLI" locomote @mannequin --terrain ramp:10 --json >"$tmp/out" 2>"$tmp/err" || fail "b4 ramp:10: failed"
if grep -q "can climb" "$tmp/err"; then fail "b4 ramp:10: warned"; fi

# --- b5: convert writes nothing the reader refuses ----------------------------
cat >"$tmp/far.bvh" <<'EOF'
HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 3 Xposition Yposition Zposition
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 2
Frame Time: 0.1
1e15 1e15 1e15
0 0 0
EOF
set +e
"$SK_CLI" convert "$tmp/far.bvh" "$tmp/far.glb" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "b5: convert exit $rc, expected 1"
grep -q "the glTF reader would refuse the file" "$tmp/err" || { cat "$tmp/err"; fail "b5: no reader message"; }
[[ ! -e "$tmp/far.glb" ]] || fail "b5: a file was written"

sk_done cli_hostile_bounds
