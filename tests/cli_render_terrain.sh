#!/usr/bin/env bash
# skelanim render --terrain: the mannequin over stairs (PNG) and a ramp (GIF),
# placed on the ground under its root, and the errors for bad terrain specs.
# The pictures themselves are checked in tests/test_terrain_render.c.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${SK_CLI:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Mesa keeps allocations to process exit (see cli_render_ik.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

"$SK_CLI" render @mannequin --terrain stairs:0.17,0.28 --out "$tmp/x.png" >"$tmp/out.txt"
cat "$tmp/out.txt"
[[ "$(head -c 4 "$tmp/x.png" | tail -c 3)" == PNG ]] || fail "x.png is not a PNG"
grep -q "terrain: stairs up: rise 0.17 m, run 0.28 m, first riser at z = 1 m" "$tmp/out.txt" || fail "no stairs line"
grep -q "wrote $tmp/x.png (480x480, 1 frame)" "$tmp/out.txt" || fail "no wrote line"
"$SK_CLI" render @mannequin --clip walk --terrain ramp:30 --frames 4 --size 120x120 --out "$tmp/r.gif" >"$tmp/out.txt"
[[ "$(head -c 6 "$tmp/r.gif")" == GIF89a ]] || fail "r.gif is not a GIF"
# flat:0.3: the character's lowest point (0 for the mannequin's idle) goes up to the plane
"$SK_CLI" render @mannequin --terrain flat:0.3 --size 64x64 --out "$tmp/f.png" >"$tmp/out.txt"
grep -Eq "the character moved up 0.300 m to stand on it" "$tmp/out.txt" || { cat "$tmp/out.txt"; fail "flat:0.3 placement"; }
for t in bumps:0.15,3 ledge:0.8 flat; do
  "$SK_CLI" render @mannequin --terrain "$t" --size 64x64 --out "$tmp/t.png" >/dev/null || fail "--terrain $t"
done

bad() { # expected message, then the arguments
  local msg=$1; shift
  if "$SK_CLI" render @mannequin "$@" --out "$tmp/bad.png" 2>"$tmp/err.txt"; then fail "accepted: $*"; fi
  grep -qF -- "$msg" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no '$msg' for: $*"; }
  [[ ! -e "$tmp/bad.png" ]] || fail "an image for: $*"
}
bad "skelanim: --terrain ramp:95: the angle must be within (-90, 90) degrees" --terrain ramp:95
bad "--terrain stairs:0.17: expected stairs:RISE,RUN (metres)" --terrain stairs:0.17
bad "--terrain hill: unknown terrain" --terrain hill
bad "--terrain bumps:0.1,2.5: the seed must be an integer" --terrain bumps:0.1,2.5
bad "--terrain $tmp/none.glb: cannot open" --terrain "$tmp/none.glb"
if "$SK_CLI" render @mannequin --out "$tmp/bad.png" --terrain 2>"$tmp/err.txt"; then fail "accepted --terrain without a value"; fi
grep -qF -- "--terrain needs a value" "$tmp/err.txt" || fail "no '--terrain needs a value'"
bad "--terrain does not go with --ik" --terrain flat --ik slope
sk_done "render --terrain"
