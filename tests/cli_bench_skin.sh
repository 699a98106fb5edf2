#!/usr/bin/env bash
# skelanim bench skin: JSON lines for the grid (4 and 8 influences), the
# mannequin and a file given (CesiumMan), LBS and DQS at every SIMD level the
# CPU has, with the vertices counted by influence; a file without a skinned
# mesh and a bad option are refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
shared="${SK_SHARED_DIR:-}"
cesium="$shared/assets/gltf/CesiumMan/CesiumMan.glb"
[[ -n "$shared" && -f "$cesium" ]] || { echo "skip: no $cesium"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SK_CLI" bench skin --vertices 2000 "$cesium" >"$tmp/out.jsonl" 2>"$tmp/err.txt"
cat "$tmp/out.jsonl"
[[ ! -s "$tmp/err.txt" ]] || { cat "$tmp/err.txt"; fail "bench skin wrote to stderr"; }
levels=$(grep -c '"mesh":"mannequin","method":"lbs"' "$tmp/out.jsonl")
[[ $levels -ge 1 ]] || fail "no mannequin line"
# grid: 2 influence counts x 2 methods x levels; mannequin and CesiumMan: 2 methods x levels
[[ $(grep -c '"vertices":2000,' "$tmp/out.jsonl") -eq $((4 * levels)) ]] || fail "grid lines"
[[ $(grep -c '"mesh":"mannequin",.*"vertices":6746,.*"vertices_by_influences":{"1":2890,"2":3760,"3":96,"4":0,"5-8":0}' "$tmp/out.jsonl") -eq $((2 * levels)) ]] ||
  fail "mannequin lines (6,746 vertices: 2,890 / 3,760 / 96 with 1 / 2 / 3 influences)"
[[ $(grep -c '"mesh":"CesiumMan.glb",.*"vertices":3273,.*"vertices_by_influences":{"1":458,"2":1678,"3":717,"4":420,"5-8":0}' "$tmp/out.jsonl") -eq $((2 * levels)) ]] ||
  fail "CesiumMan lines"
[[ $(grep -c '"ns_per_vertex_min":[0-9]' "$tmp/out.jsonl") -eq $((8 * levels)) ]] || fail "a line without ns_per_vertex_min"
cube="$shared/assets/gltf/AnimatedCube/AnimatedCube.gltf"
if [[ -f "$cube" ]]; then
  if "$SK_CLI" bench skin --vertices 100 "$cube" >/dev/null 2>"$tmp/err.txt"; then fail "a file without a skinned mesh accepted"; fi
  grep -q "no skinned primitive" "$tmp/err.txt" || fail "no message for a file without a skinned mesh"
fi
if "$SK_CLI" bench skin --bogus 2>"$tmp/err.txt"; then fail "--bogus accepted"; fi
grep -q "usage" "$tmp/err.txt" || fail "no usage for --bogus"
echo "bench skin: $((8 * levels)) lines over $levels SIMD levels"
