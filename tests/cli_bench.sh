#!/usr/bin/env bash
# skelanim bench sample | mix | ltm | palette (issue #13): one JSON line each
# with positive, finite ns per joint for the mannequin and a file; clear errors.
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
    if stage == "palette":  # the SoA passes: two, one, eight characters at a time
        for k in ("two_pass", "one_pass", "eight"):
            assert math.isfinite(r[k + "_ns_per_joint_min"]) and 0 < r[k + "_ns_per_joint_min"] <= r[k + "_ns_per_joint_median"], r
print("bench %s: %s" % (stage, [(r["file"].split("/")[-1], r["ns_per_joint_min"]) for r in rows]))
PY
done
# --layout: one layout timed alone, the line says which and carries only its keys
for stage in mix ltm; do
  for lay in both aos soa; do
    "$SK_CLI" bench $stage --layout $lay --count 5 --frames 2 >"$tmp/lay-$stage-$lay.json" || fail "bench $stage --layout $lay"
  done
done
python3 - "$tmp" <<'PY'
import json, sys
for stage in ("mix", "ltm"):
    for lay in ("both", "aos", "soa"):
        r = json.loads(open(f"{sys.argv[1]}/lay-{stage}-{lay}.json").read().splitlines()[-1])
        assert r["layout"] == lay, r
        assert ("aos_ns_per_joint_min" in r) == (lay != "soa"), r
        assert ("soa_ns_per_joint_min" in r) == (lay != "aos"), r
        main = r["soa_ns_per_joint_min"] if lay == "soa" else r["aos_ns_per_joint_min"]
        assert r["ns_per_joint_min"] == main, r
print("bench mix|ltm --layout: the keys of the layout timed")
PY
if "$SK_CLI" bench mix --layout rows 2>"$tmp/err.txt"; then fail "--layout rows accepted"; fi
grep -q -- "--layout" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
"$SK_CLI" bench sample --count 20 --frames 5 >"$tmp/sample.jsonl" || fail "bench sample"
"$SK_CLI" bench sample "$tmp/m.glb" --clip walk --count 9 --frames 4 >>"$tmp/sample.jsonl" || fail "bench sample FILE"
python3 - "$tmp/sample.jsonl" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, rows
assert rows[0]["clip"] == "idle" and rows[1]["clip"] == "walk", rows  # the first clip by default
for r, chars in zip(rows, (20, 9)):
    assert r["bench"] == "sample" and r["characters"] == chars and r["joints"] == 22 and r["tracks"] > 0, r
    for k in ("forward_ns_per_joint_min", "forward_ns_per_joint_median", "random_ns_per_joint_min",
              "random_ns_per_joint_median", "pose_ns_forward_min", "pose_ns_random_min"):
        assert math.isfinite(r[k]) and r[k] > 0, (k, r)
    assert abs(r["pose_ns_forward_min"] - 22 * r["forward_ns_per_joint_min"]) < 0.01 * r["pose_ns_forward_min"] + 0.1, r
print("bench sample:", [(r["clip"], r["forward_ns_per_joint_min"], r["random_ns_per_joint_min"]) for r in rows])
PY
echo '{"asset":{"version":"2.0"},"nodes":[{"name":"a"}],"scenes":[{"nodes":[0]}]}' >"$tmp/noskin.gltf"
if "$SK_CLI" bench sample "$tmp/noskin.gltf" 2>"$tmp/err.txt"; then fail "sample without a clip accepted"; fi
grep -q "has no clip" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
if "$SK_CLI" bench palette "$tmp/noskin.gltf" 2>"$tmp/err.txt"; then fail "palette without a skin accepted"; fi
grep -q "has no skin" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
if "$SK_CLI" bench ltm --count 0 2>"$tmp/err.txt"; then fail "--count 0 accepted"; fi
grep -q -- "--count" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "message"; }
# bench json: the glTF reader's JSON layer and cJSON on a .glb's JSON chunk and a .gltf; broken JSON: an error line
printf '{"asset": [}' >"$tmp/broken.gltf"
if "$SK_CLI" bench json --quick "$tmp/m.glb" "$tmp/noskin.gltf" "$tmp/broken.gltf" >"$tmp/json.jsonl"; then
  fail "bench json: broken JSON accepted"
fi
python3 - "$tmp/json.jsonl" <<'PY'
import json, math, sys
rows = {r["file"].split("/")[-1]: r for r in map(json.loads, open(sys.argv[1]))}
assert sorted(rows) == ["broken.gltf", "m.glb", "noskin.gltf"], rows
assert "near byte 11" in rows["broken.gltf"]["error"], rows
assert rows["noskin.gltf"]["json_bytes"] == 76 and rows["noskin.gltf"]["values"] == 10, rows
for r in (rows["m.glb"], rows["noskin.gltf"]):
    for k in ("check_min_ms", "read_min_ms", "cjson_min_ms", "cjson_over_read"):
        assert math.isfinite(r[k]) and r[k] > 0, (k, r)
print("bench json:", [(f, r.get("read_min_ms"), r.get("cjson_min_ms")) for f, r in sorted(rows.items())])
PY
# bench load: each loader timed on each file in a process of its own (the
# default), or all in this one (--same-process); a rejected file is an
# error row and exit status 1, in both modes.
for mode in fresh same; do
  extra=(); [ "$mode" = same ] && extra=(--same-process)
  if "$SK_CLI" bench load --quick "${extra[@]}" "$tmp/m.glb" "$tmp/noskin.gltf" "$tmp/broken.gltf" >"$tmp/load.jsonl"; then
    fail "bench load: broken JSON accepted"
  fi
  python3 - "$tmp/load.jsonl" "$mode" <<'PY'
import json, math, sys
rows = {r["file"].split("/")[-1]: r for r in map(json.loads, open(sys.argv[1]))}
fresh = sys.argv[2] == "fresh"
assert sorted(rows) == ["broken.gltf", "m.glb", "noskin.gltf"], rows
assert rows["broken.gltf"]["error"] == "rejected by skelanim", rows
for f in ("m.glb", "noskin.gltf"):
    r = rows[f]
    assert r["fresh_process"] is fresh and "error" not in r and r["runs"] >= 1, r
    for k in ("median_ms", "min_ms"):
        assert math.isfinite(r[k]) and r[k] > 0, (k, r)
    assert 0 <= r["min_page_faults"] <= r["median_page_faults"], r
    if "assimp_median_ms" in r or "assimp_error" in r:  # built with assimp
        assert r["assimp_median_ms"] > 0 and r["assimp_over_skelanim"] > 0, r
print("bench load (%s):" % sys.argv[2], [(f, r.get("median_ms"), r.get("assimp_median_ms")) for f, r in sorted(rows.items())])
PY
done
sk_done cli_bench
