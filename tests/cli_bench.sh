#!/usr/bin/env bash
# skelanim bench mix | ltm | palette (issue #13): one JSON line each with
# positive, finite ns per joint for the mannequin and a file; clear errors.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
sk_need_cmd python3 "Debian package python3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SK_CLI" export-mannequin "$tmp/m.glb" >/dev/null
for stage in mix ltm palette; do
  "$SK_CLI" bench $stage --count 20 --frames 5 >"$tmp/$stage.jsonl" || fail "bench $stage"
  "$SK_CLI" bench $stage "$tmp/m.glb" --count 7 --frames 3 >>"$tmp/$stage.jsonl" || fail "bench $stage FILE"
  python3 - "$tmp/$stage.jsonl" "$stage" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
stage = sys.argv[2]
assert len(rows) == 2, rows
for r, (chars, frames) in zip(rows, [(20, 5), (7, 3)]):
    assert r["bench"] == stage and r["characters"] == chars and r["frames"] == frames, r
    assert r["joints"] == (21 if stage == "palette" else 22), r  # the mannequin: 22 joints, 21 in its skin
    for k in ("ns_per_joint_min", "ns_per_joint_median"):
        assert math.isfinite(r[k]) and r[k] > 0, r
    assert r["ns_per_joint_min"] <= r["ns_per_joint_median"], r
print("bench %s: %s" % (stage, [(r["file"].split("/")[-1], r["ns_per_joint_min"]) for r in rows]))
PY
done
echo '{"asset":{"version":"2.0"},"nodes":[{"name":"a"}],"scenes":[{"nodes":[0]}]}' >"$tmp/noskin.gltf"
if "$SK_CLI" bench palette "$tmp/noskin.gltf" 2>"$tmp/err.txt"; then fail "palette without a skin accepted"; fi
grep -q "has no skin" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
if "$SK_CLI" bench ltm --count 0 2>"$tmp/err.txt"; then fail "--count 0 accepted"; fi
grep -q -- "--count" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
sk_done cli_bench
