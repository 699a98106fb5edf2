#!/usr/bin/env bash
# skelanim compress (offline/compress.h, io/skc.h): a table and JSON lines per
# clip, OUTDIR/<stem>.skc per input, folders, --fps, -j, the same-stem error,
# bad options; info, sample --json, render and bench sample-compressed on the
# .skc it writes (sample: within the requested error of the source).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
data="$SK_SOURCE_DIR/tests/data/bvh"

# mixed.bvh's positions reach 333 units: at 10 m per unit, 0.01 cm there is below float
# precision (the clip is kept as keys, at no other rate than its own); as centimetres
# (--scale 0.01) it compresses.
"$SK_CLI" compress "$data/mixed.bvh" -o "$tmp/out" --scale 0.01 >"$tmp/t.txt"
cat "$tmp/t.txt"
[[ -s "$tmp/out/mixed.skc" ]] || fail "no mixed.skc"
grep -q '^file  *clip  *fps  *frames  *raw B  *packed B  *ratio  *max cm  *p99 cm  *ms$' "$tmp/t.txt" || fail "no table header"
grep -q '^total: 1 clips (0 kept as keys)' "$tmp/t.txt" || fail "no total line"
"$SK_CLI" compress "$data/mixed.bvh" -o "$tmp/out" --json --error-cm 0.5 --shell-cm 10 --scale 0.01 -j 2 >"$tmp/j.txt"
"$SK_CLI" compress "$data/mixed.bvh" -o "$tmp/keys" --scale 10 --json >"$tmp/k.txt"
python3 -c "
import json,sys; r=json.loads(open(sys.argv[1]).read())
assert not r['compressed'] and 'cannot be met at its own 25 frames/s' in r['reason'] and 'higher rate' in r['reason'], r
assert r['input_frames'] == 3 and abs(r['input_fps'] - 25) < 1e-3 and r['rate_change'] == 'none', r" "$tmp/k.txt"
"$SK_CLI" sample "$tmp/keys/mixed.skc" --time 0.05 --json >/dev/null
python3 - "$tmp/j.txt" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, rows
r = rows[0]
assert r["compressed"] and r["clip"] == "mixed" and r["skc"] == "mixed", r
assert r["max_error_cm"] <= 0.5 and r["p99_error_cm"] <= r["max_error_cm"], r
assert r["raw_bytes"] == 40 * 4 * r["frames"] and r["frames"] == 3, r   # 4 joints with tracks, 3 frames
# no --fps: stored at the input's own rate and frames, nothing said to change
assert r["input_frames"] == r["output_frames"] == r["raw_frames"] == 3 and r["rate_change"] == "none", r
assert abs(r["output_fps"] - r["input_fps"]) <= 1e-6 * r["input_fps"] and r["input_uniform"] is True, r
print("json:", r)
PY

"$SK_CLI" info "$tmp/out/mixed.skc" >"$tmp/info.txt"
grep -q '^units: 0.01 m per unit (recorded in the .skc)$' "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "units line"; }
grep -q '^  clip 0 "mixed": 0.080 s, 6 tracks: .*(compressed: [0-9]* bytes, 3 frames)$' "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "clip line"; }
"$SK_CLI" render "$tmp/out/mixed.skc" --time 0.04 --size 64x64 --out "$tmp/m.png" >/dev/null
[[ "$(head -c 4 "$tmp/m.png" | tail -c 3)" == PNG ]] || fail "m.png is not a PNG"
"$SK_CLI" bench sample-compressed "$tmp/out/mixed.skc" >"$tmp/b.txt"
python3 -c "import json,sys; r=json.loads(open(sys.argv[1]).read()); assert r['compressed'] and r['random_us'] > 0, r" "$tmp/b.txt"

# Errors: two inputs with one stem, unknown options, bad numbers, nothing readable.
bad() {
  local msg=$1; shift
  if "$SK_CLI" "$@" >"$tmp/o.txt" 2>"$tmp/err.txt"; then fail "accepted: $*"; fi
  grep -qF -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
}
mkdir -p "$tmp/b"
cp "$data/mixed.bvh" "$tmp/b/mixed.bvh"
bad "would both write mixed.skc" compress "$data/mixed.bvh" "$tmp/b" -o "$tmp/o2"
bad "skelanim: --error-cm: '0'" compress "$data/mixed.bvh" -o "$tmp/o2" --error-cm 0
bad "skelanim: --fps: 'x'" compress "$data/mixed.bvh" -o "$tmp/o2" --fps x
bad "skelanim: -j: '0'" compress "$data/mixed.bvh" -o "$tmp/o2" -j 0
bad "unknown option '--bogus'" compress "$data/mixed.bvh" -o "$tmp/o2" --bogus
bad "usage: skelanim compress" compress "$data/mixed.bvh"
bad "not a .bvh, .glb or .gltf file" compress "$tmp/info.txt" -o "$tmp/o2"
printf 'not a skc' >"$tmp/x.skc"
bad "skc:" info "$tmp/x.skc"

# A shared CMU clip at 120 and 24 fps: sample --json of the .skc within 0.01 cm of the source.
if shared=$(sk_shared_dir) && [[ -f "$shared/mocap/bvh/02_01.bvh" ]]; then
  f="$shared/mocap/bvh/02_01.bvh"
  "$SK_CLI" compress "$f" -o "$tmp/c" --scale 0.056444 >"$tmp/c.txt"
  cat "$tmp/c.txt"
  "$SK_CLI" compress "$f" -o "$tmp/c24" --scale 0.056444 --fps 24 --json >"$tmp/c24.txt"
  "$SK_CLI" compress "$f" -o "$tmp/c24t" --scale 0.056444 --fps 24 >"$tmp/c24t.txt"
  "$SK_CLI" compress "$f" -o "$tmp/c240" --scale 0.056444 --fps 240 --json >"$tmp/c240.txt"
  # The rate fields and the ratio's basis against the BVH text read here: its joints with
  # channels (ROOT/JOINT lines) and its frames; --fps 24 keeps every 5th frame of 120.
  python3 - "$f" "$tmp/c24.txt" "$tmp/c240.txt" "$tmp/c24t.txt" <<'PY'
import json, sys
text = open(sys.argv[1]).read().split()
joints = sum(1 for w in text if w in ("ROOT", "JOINT"))
frames = int(text[text.index("Frames:") + 1])
fps = 1.0 / float(text[text.index("Frame") + 2])  # "Frame Time: 0.0083333"
r = json.loads(open(sys.argv[2]).read())
n24 = (frames - 1) // 5 + 1
assert r["frames"] == r["output_frames"] == n24 == 69 and abs(r["output_fps"] - 24) < 0.01, r
assert r["input_frames"] == frames and abs(r["input_fps"] - fps) < 1e-3 * fps and r["input_uniform"], r
assert r["rate_change"] == "downsampled to --fps" and r["max_error_cm"] <= 0.01, r
# the ratio: the compressor's input (the --fps frames) as 10 float32 per joint, over the blob
assert r["raw_frames"] == n24 and r["raw_bytes"] == 40 * joints * n24, (r, joints)
assert abs(r["ratio"] - 40 * joints * n24 / r["compressed_bytes"]) < 1e-6 * r["ratio"], r
# --fps above the clip's own rate: kept at its rate and frames, and said so
u = json.loads(open(sys.argv[3]).read())
assert u["output_frames"] == u["input_frames"] == frames and abs(u["output_fps"] - fps) < 1e-3 * fps, u
assert u["rate_change"] == "kept at its own rate (--fps is above it)" and u["raw_bytes"] == 40 * joints * frames, u
# the table shows the change: rate and frames, input -> stored
row = [l for l in open(sys.argv[4]) if l.startswith("02_01")]
assert len(row) == 1 and row[0].split()[2:4] == ["120->24", "%d->%d" % (frames, n24)], row
print("24 fps:", r)
PY
  for t in 0 0.3337 1.2 2.8; do
    "$SK_CLI" sample "$f" --time $t --json >"$tmp/a.json"
    "$SK_CLI" sample "$tmp/c/02_01.skc" --time $t --json >"$tmp/b.json"
    python3 - "$tmp/a.json" "$tmp/b.json" $t <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
wa = {n["name"]: n["world"][12:15] for n in a["nodes"]}
wb = {n["name"]: n["world"][12:15] for n in b["nodes"]}
assert set(wa) == set(wb)
worst = max(sum((wa[k][i] - wb[k][i]) ** 2 for i in range(3)) ** 0.5 for k in wa) * 5.6444  # cm
assert worst <= 0.01, worst
print("t = %s: joints within %.5f cm" % (sys.argv[3], worst))
PY
  done
else
  sk_missing_part "../shared/mocap/bvh/02_01.bvh is absent"
fi

# InterpolationTest's nine clips (STEP, LINEAR, CUBICSPLINE): every one compresses or is kept as keys
# with its reason; a clip is never stored larger than its own keys (the JSON's bytes, checked here);
# the CUBICSPLINE translation (a curve needing 769 frames) is kept as keys; the STEP clips compress
# exactly (max error 0).
if shared=$(sk_shared_dir) && [[ -f "$shared/assets/gltf/InterpolationTest/InterpolationTest.glb" ]]; then
  "$SK_CLI" compress "$shared/assets/gltf/InterpolationTest/InterpolationTest.glb" -o "$tmp/it" --json >"$tmp/it.json"
  "$SK_CLI" compress "$shared/assets/gltf/InterpolationTest/InterpolationTest.glb" -o "$tmp/it" >"$tmp/it.txt"
  grep -q "CubicSpline Transl   kept as keys.*more than its 200 bytes of keys" "$tmp/it.txt" || fail "cubic translation not kept"
  python3 - "$tmp/it.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
clips = [r for r in rows if "clip" in r]
assert len(clips) == 9, len(clips)
packed = [r for r in clips if r.get("compressed")]
for r in packed:
    assert r["compressed_bytes"] <= r["raw_bytes"], r
    if r["clip"].startswith("Step"): assert r["max_error_cm"] == 0 and r["step_tracks"] == 1, r
assert sum(r["clip"].startswith("Step") for r in packed) == 3
print(f"InterpolationTest: {len(packed)} of 9 compressed, none larger than its keys")
PY
else
  sk_missing_part "../shared/assets/gltf/InterpolationTest is absent"
fi
sk_done cli_compress
