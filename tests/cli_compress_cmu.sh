#!/usr/bin/env bash
# Two clips of the reporting half of tests/data/cmu (09_01, 09_03: runs) compressed at 120 and at
# 24 fps at the default 0.01 cm. The ratio is recomputed from the files: raw = 10 float32 x the
# ROOT/JOINT lines of the .bvh x its frames (120 fps) or floor((frames - 1) / 5) + 1 (24 fps),
# over the reported blob bytes; every clip's reported max error <= 0.01 cm. At 120 fps the error
# is also measured here, independently of the compressor's own check: the .skc and the .bvh
# sampled through `skelanim sample --json` at 15 random times per clip (between frames too), 3 cm
# vertices on the three axes of every node moved by the world matrices, the largest distance.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}" "${SK_SOURCE_DIR:?}"
sk_need_cmd python3 "apt-get install python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
dir="$SK_SOURCE_DIR/tests/data/cmu"
clips=(09_01 09_03)
for c in "${clips[@]}"; do
  grep -q "^$c.bvh	reporting	" "$dir/split.tsv" || fail "$c is not in the reporting half"
done

args=()
for c in "${clips[@]}"; do args+=("$dir/$c.bvh"); done
"$SK_CLI" compress "${args[@]}" --scale 0.056444 -o "$tmp/o120" --json >"$tmp/120.jsonl"
"$SK_CLI" compress "${args[@]}" --scale 0.056444 --fps 24 -o "$tmp/o24" --json >"$tmp/24.jsonl"

python3 - "$dir" "$tmp" "$SK_CLI" "${clips[@]}" <<'PY'
import json, math, random, subprocess, sys
d, tmp, cli, clips = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def bvh_counts(path):
    joints, frames = 0, None
    for line in open(path):
        w = line.split()
        if w and w[0] in ("ROOT", "JOINT"):
            joints += 1
        elif w[:1] == ["Frames:"]:
            frames = int(w[1])
    return joints, frames

checked = 0
for rate, step in (("120", 1), ("24", 5)):
    rows = {json.loads(l)["clip"]: json.loads(l) for l in open(f"{tmp}/{rate}.jsonl")}
    if sorted(rows) != sorted(clips):
        sys.exit(f"FAIL: {rate} fps: clips {sorted(rows)}, want {clips}")
    for c in clips:
        r = rows[c]
        joints, frames = bvh_counts(f"{d}/{c}.bvh")
        n = (frames - 1) // step + 1
        raw = 40 * joints * n
        if r["raw_bytes"] != raw:
            sys.exit(f"FAIL: {c} {rate}: raw_bytes {r['raw_bytes']}, the file gives {raw}")
        if not r["compressed"] or r["compressed_bytes"] <= 0:
            sys.exit(f"FAIL: {c} {rate}: not compressed")
        if abs(r["ratio"] - raw / r["compressed_bytes"]) > 1e-5 * r["ratio"]:
            sys.exit(f"FAIL: {c} {rate}: ratio {r['ratio']}, bytes give {raw / r['compressed_bytes']}")
        if not r["max_error_cm"] <= 0.01:
            sys.exit(f"FAIL: {c} {rate}: max error {r['max_error_cm']} cm")
        checked += 1
if checked != 2 * len(clips):
    sys.exit(f"FAIL: {checked} clip rows checked")

CM = 5.6444   # cm per CMU unit (--scale 0.056444)

def world(path, t):
    args = [cli, "sample", path, "--time", repr(t), "--loop", "clamp", "--json"]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {n["name"]: n["world"] for n in out["nodes"]}

rng = random.Random(12)
worst, samples = 0.0, 0
for c in clips:
    joints, frames = bvh_counts(f"{d}/{c}.bvh")
    dur = (frames - 1) / 120.0
    for _ in range(15):
        t = rng.uniform(0.0, dur * 0.999)
        a = world(f"{d}/{c}.bvh", t)            # both in file units (the .skc keeps them)
        b = world(f"{tmp}/o120/{c}.skc", t)
        if sorted(a) != sorted(b) or len(a) < joints:
            sys.exit(f"FAIL: {c}: the nodes differ")
        for name, m in a.items():
            k = b[name]
            for ax in range(3):
                e = math.dist([m[12 + i] + 3.0 / CM * m[4 * ax + i] for i in range(3)],
                              [k[12 + i] + 3.0 / CM * k[4 * ax + i] for i in range(3)]) * CM
                worst = max(worst, e)
        samples += 1
# the JSON prints floats: allow their rounding (about 1e-5 cm at 100 cm)
if samples != 15 * len(clips):
    sys.exit(f"FAIL: {samples} times sampled")
if not worst <= 0.01 + 1e-4:
    sys.exit(f"FAIL: shell error {worst} cm at random times")
print(f"{checked} clip rows, {samples} random times: shell error at most {worst:.5f} cm")
PY
echo "PASS"
