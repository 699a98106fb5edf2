#!/usr/bin/env bash
# skelanim bench crowd: the default output keeps its keys (one line per crowd
# size, threads 1); --count, --threads (alternated, a speedup on the later
# thread counts), --loop (the plain loop), --joints (the synthetic skeleton), --frames and --repeat
# work; bad options are refused with a message.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SK_CLI" bench crowd 20 30 --frames 3 >"$tmp/out.jsonl" 2>"$tmp/err.txt"
cat "$tmp/out.jsonl"
[[ ! -s "$tmp/err.txt" ]] || { cat "$tmp/err.txt"; fail "bench crowd wrote to stderr"; }
[[ $(wc -l <"$tmp/out.jsonl") -eq 2 ]] || fail "expected 2 lines"
for key in '"bench":"crowd"' '"joints":22,' '"frames":3,' '"ms_per_frame_mean":' '"ms_per_frame_min":' \
  '"us_per_character":' '"threads":1,"path":"batch",' '"skeleton":"mannequin"'; do
  [[ $(grep -c "$key" "$tmp/out.jsonl") -eq 2 ]] || fail "a line without $key"
done
grep -q '"characters":20,' "$tmp/out.jsonl" && grep -q '"characters":30,' "$tmp/out.jsonl" || fail "crowd sizes"

"$SK_CLI" bench crowd --count 50 --threads 1 --threads 3 --joints 64 --frames 2 --repeat 3 >"$tmp/out.jsonl"
cat "$tmp/out.jsonl"
[[ $(wc -l <"$tmp/out.jsonl") -eq 2 ]] || fail "expected 2 lines (two thread counts)"
[[ $(grep -c '"characters":50,"joints":64,' "$tmp/out.jsonl") -eq 2 ]] || fail "not 50 characters of 64 joints"
grep -q '"threads":1,"path":"batch","layout":"soa","skeleton":"synthetic","runs":3,' "$tmp/out.jsonl" || fail "threads 1 line"
grep '"threads":3,' "$tmp/out.jsonl" | grep -q '"speedup":[0-9.]*,"speedup_over_threads":1' || fail "no speedup on threads 3"
[[ $(grep -o '"ms_per_frame_runs":\[[0-9.]*,[0-9.]*,[0-9.]*\]' "$tmp/out.jsonl" | wc -l) -eq 2 ]] || fail "not 3 runs"

# --loop: the written-out loop beside the pool, alternated
"$SK_CLI" bench crowd 40 --threads 2 --loop --chunk 7 --frames 2 --repeat 2 >"$tmp/out.jsonl"
cat "$tmp/out.jsonl"
[[ $(wc -l <"$tmp/out.jsonl") -eq 2 ]] || fail "expected 2 lines (threads 2, loop)"
grep -q '"threads":2,"path":"batch"' "$tmp/out.jsonl" || fail "no batch line"
grep -q '"threads":1,"path":"loop","layout":"aos"' "$tmp/out.jsonl" || fail "no loop line"

# --aos: sk_pose throughout
"$SK_CLI" bench crowd 30 --aos --frames 2 >"$tmp/out.jsonl"
cat "$tmp/out.jsonl"
grep -q '"threads":1,"path":"batch","layout":"aos"' "$tmp/out.jsonl" || fail "--aos not reported"

# --layers 3 / --file: one clip at three phases, three layers by weights, local-to-model
"$SK_CLI" bench crowd 20 --layers 3 --frames 2 >"$tmp/out.jsonl"
"$SK_CLI" bench crowd 20 --file @mannequin --clip run --frames 2 --aos >>"$tmp/out.jsonl"
cat "$tmp/out.jsonl"
[[ $(grep -c '"work":"3 samples + 3-layer blend + local-to-model"' "$tmp/out.jsonl") -eq 2 ]] || fail "three-layer work"
grep -q '"layout":"soa","skeleton":"mannequin"' "$tmp/out.jsonl" || fail "three layers on the SoA path"
grep -q '"layout":"aos","skeleton":"@mannequin"' "$tmp/out.jsonl" || fail "--file with --aos"

# --write: the synthetic characters as .glb, read back by --file (three layers on its walk)
"$SK_CLI" bench crowd 10 --joints 20 --frames 2 --write "$tmp/syn.glb" > /dev/null || fail "--write"
"$SK_CLI" info "$tmp/syn.glb" | grep -q 'nodes: 20' || fail "--write: not 20 nodes"
"$SK_CLI" bench crowd 10 --file "$tmp/syn.glb" --clip walk --frames 2 > "$tmp/out.jsonl" || fail "--file of the written rig"
grep -q '"joints":20,' "$tmp/out.jsonl" || fail "--file: joints"

# --hook footik: foot IK on the SoA path (the hook lists its joints), and on sk_pose with --aos
"$SK_CLI" bench crowd 25 --hook footik --frames 2 >"$tmp/out.jsonl"
"$SK_CLI" bench crowd 25 --hook footik --frames 2 --aos >>"$tmp/out.jsonl"
cat "$tmp/out.jsonl"
[[ $(grep -c '"hook":"footik"' "$tmp/out.jsonl") -eq 2 ]] || fail "--hook footik not reported"
grep '"hook":"footik"' "$tmp/out.jsonl" | grep -q '"layout":"soa"' || fail "--hook footik did not keep the SoA path"
grep '"hook":"footik"' "$tmp/out.jsonl" | grep -q '"layout":"aos"' || fail "--hook footik --aos"

# --compressed: the clips played compressed, and said so; the raw run says raw. The compressed clips'
# bytes come from sk_clip_compressed_data's blob, independent of the bench: smaller than the raw ones.
"$SK_CLI" bench crowd 20 --frames 2 >"$tmp/raw.jsonl"
"$SK_CLI" bench crowd 20 --frames 2 --compressed >"$tmp/cmp.jsonl"
"$SK_CLI" bench crowd 20 --frames 2 --compressed --joints 64 --cursor-cache >>"$tmp/cmp.jsonl"
python3 - "$tmp/raw.jsonl" "$tmp/cmp.jsonl" <<'PY'
import json, sys
raw = [json.loads(l) for l in open(sys.argv[1])]
cmp = [json.loads(l) for l in open(sys.argv[2])]
assert len(raw) == 1 and raw[0]["clips"] == "raw", raw
assert len(cmp) == 2 and all(r["clips"] == "compressed" for r in cmp), cmp
assert cmp[0]["clip_bytes"] < raw[0]["clip_bytes"], (cmp[0]["clip_bytes"], raw[0]["clip_bytes"])
# --cursor-cache said so, and its cursors are the longer ones (the decoded frames: 32 bytes per animated track)
assert raw[0]["cursor_cache"] is False and cmp[0]["cursor_cache"] is False and cmp[1]["cursor_cache"] is True, cmp
assert cmp[1]["instance_bytes"] >= 2 * 128 * 32, cmp[1]["instance_bytes"]
print(f"--compressed: {cmp[0]['clip_bytes']} clip bytes against {raw[0]['clip_bytes']} raw")
PY

for bad in "--hook" "--hook ccd" "--hook footik --loop" "--hook footik --joints 20" \
           "--threads 0" "--threads" "--joints 1" "--count 0" "--repeat 0" "--chunk 0" "--frobnicate" "--layers 4" \
           "--layers 3 --loop" "--file @mannequin --joints 64" "--file @mannequin --clip nosuchclip"; do
  # shellcheck disable=SC2086
  if "$SK_CLI" bench crowd $bad 2>"$tmp/err.txt" >/dev/null; then fail "bench crowd $bad accepted"; fi
  [[ -s "$tmp/err.txt" ]] || fail "no message for bench crowd $bad"
done
echo "bench crowd: default keys kept, --threads/--joints/--repeat work, bad options refused"
