#!/usr/bin/env bash
# skelanim bench terrain: one JSON line per terrain and ray kind (5 built-in
# terrains x 2 kinds, the mesh through its grid and by brute force x 3 kinds),
# every ray of the "down" kind hits, grid and brute force agree, bad options
# are refused.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SK_CLI" bench terrain --rays 300 --grid-size 30 >"$tmp/out.jsonl" 2>"$tmp/err.txt"
cat "$tmp/out.jsonl"
[[ ! -s "$tmp/err.txt" ]] || { cat "$tmp/err.txt"; fail "bench terrain wrote to stderr"; }
[[ $(wc -l <"$tmp/out.jsonl") -eq 16 ]] || fail "expected 16 lines"
[[ $(grep -c '"bench":"terrain"' "$tmp/out.jsonl") -eq 16 ]] || fail "not every line is a terrain bench"
[[ $(grep -c '"ns_per_ray":[0-9]' "$tmp/out.jsonl") -eq 16 ]] || fail "a line without ns_per_ray"
# straight down from above the ground: every ray hits (300 per built-in terrain
# and the grid, 3 by brute force)
[[ $(grep -E '"kind":"down(_local)?"' "$tmp/out.jsonl" | grep -c '"rays":300,"hits":300,') -eq 7 ]] || fail "a downward ray missed"
[[ $(grep -E '"kind":"down(_local)?"' "$tmp/out.jsonl" | grep -c '"method":"brute_force","rays":3,"hits":3,') -eq 2 ]] ||
  fail "a downward ray missed by brute force"
grep -q '"triangles":1800,' "$tmp/out.jsonl" || fail "the mesh has not 2 x 30^2 triangles"
if "$SK_CLI" bench terrain --rays 0 2>"$tmp/err.txt"; then fail "--rays 0 accepted"; fi
grep -q "rays" "$tmp/err.txt" || fail "no message for --rays 0"
echo "bench terrain: 16 lines, every downward ray hits"
