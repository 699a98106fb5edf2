#!/usr/bin/env bash
# skelanim convert on textured models, then the Khronos glTF validator (npm
# gltf-validator, pinned in tools/validator) on the .glb written: any error
# fails. CesiumMan (skinned, a JPEG in its BIN chunk, a sampler) and
# AnimatedCube (a .gltf with two PNG files beside it: they are embedded).
# Warnings are printed but do not fail. First, a file that cannot be read
# gives one message naming it once, and exit status 1.
# Without ../shared, node or the validator: tests/lib.sh's rule (a failure
# under CI, else the conversion part is skipped, exit 77).
# Environment (set by ctest): SK_SOURCE_DIR, SK_BINARY_DIR, SK_CLI, SK_SHARED_DIR.
set -u
source "$(dirname "$0")/lib.sh"

fail() { echo "FAIL: $*" >&2; exit 1; }

src=${SK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${SK_BINARY_DIR:-$src/build}
cli=${SK_CLI:-$bin/skelanim}
validator="$src/tools/validator"

[ -x "$cli" ] || fail "SK_CLI ($cli) is not an executable"
tmp=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# Errors name the file once: the library's message names it, the tool adds nothing.
"$cli" info "$tmp/nonexistent.glb" 2> "$tmp/err.txt" && fail "info on a missing file succeeded"
n=$(grep -o "nonexistent.glb" "$tmp/err.txt" | wc -l)
[ "$n" -eq 1 ] || fail "the missing file is named $n times: $(cat "$tmp/err.txt")"
printf 'glTF\002\000\000\000\377\000\000\000' > "$tmp/corrupt.glb"
"$cli" info "$tmp/corrupt.glb" 2> "$tmp/err.txt" && fail "info on a corrupt file succeeded"
n=$(grep -o "corrupt.glb" "$tmp/err.txt" | wc -l)
[ "$n" -eq 1 ] || fail "the corrupt file is named $n times: $(cat "$tmp/err.txt")"
grep -q "GLB" "$tmp/err.txt" || fail "no reason given: $(cat "$tmp/err.txt")"
"$cli" convert @mannequin "$tmp/no/such/dir/m.glb" 2> "$tmp/err.txt" && fail "convert into a missing directory succeeded"
n=$(grep -o "m.glb" "$tmp/err.txt" | wc -l)
[ "$n" -eq 1 ] || fail "the output file is named $n times: $(cat "$tmp/err.txt")"

shared=$(sk_shared_dir) || sk_missing "../shared (SK_SHARED_DIR) is absent: nothing to convert (the error messages were checked)"
[ -d "$shared/assets/gltf/CesiumMan" ] || fail "$shared/assets/gltf/CesiumMan is missing"
sk_need_cmd node "the glTF validator needs Node.js: Debian nodejs npm"
if [ ! -f "$validator/node_modules/gltf-validator/package.json" ]; then
    sk_need_cmd npm "$validator/node_modules is missing and npm installs it: Debian npm"
    npm ci --prefix "$validator" --no-audit --no-fund >&2 ||
        sk_missing "npm ci --prefix $validator failed (is the npm registry reachable?): no validator"
fi

for model in CesiumMan/CesiumMan.glb AnimatedCube/AnimatedCube.gltf; do
    out="$tmp/$(basename "${model%.*}").glb"
    "$cli" convert "$shared/assets/gltf/$model" "$out" || fail "convert $model exited $?"
    node "$validator/validate.mjs" "$out" > "$tmp/report.txt"
    rc=$?
    cat "$tmp/report.txt"
    [ $rc -eq 0 ] || fail "the glTF validator reported errors in $model written by convert"
    grep -q "0 errors" "$tmp/report.txt" || fail "no validator summary for $model"
done
# Issue #13 item 5: the synthetic crowd characters written by bench crowd --write (for another
# runtime to read the same file) are valid glTF.
"$cli" bench crowd 2 --joints 24 --frames 1 --write "$tmp/synthetic.glb" > /dev/null || fail "bench crowd --write exited $?"
node "$validator/validate.mjs" "$tmp/synthetic.glb" > "$tmp/report.txt"
rc=$?
cat "$tmp/report.txt"
[ $rc -eq 0 ] || fail "the glTF validator reported errors in the synthetic characters"
# Issue #12 item 4: a .bvh (CMU units, --scale to metres) and the .skc compressed from it convert
# to a .glb the validator accepts, and the .glb samples as its source (joint world positions).
bvh="$shared/mocap/bvh/02_01.bvh"
[ -f "$bvh" ] || fail "$bvh is missing"
"$cli" convert "$bvh" "$tmp/walk.glb" --scale 0.0564444 || fail "convert 02_01.bvh exited $?"
"$cli" compress "$bvh" -o "$tmp/skc" --scale 0.0564444 --json > /dev/null || fail "compress 02_01.bvh exited $?"
"$cli" convert "$tmp/skc/02_01.skc" "$tmp/walk_skc.glb" || fail "convert 02_01.skc exited $?"
for out in walk walk_skc; do
    node "$validator/validate.mjs" "$tmp/$out.glb" > "$tmp/report.txt"
    rc=$?
    cat "$tmp/report.txt"
    [ $rc -eq 0 ] || fail "the glTF validator reported errors in $out.glb written by convert"
done
for t in 0 0.4167 1.5 2.85; do
    "$cli" sample "$bvh" --scale 0.0564444 --time $t --json > "$tmp/a.json" || fail "sample 02_01.bvh"
    "$cli" sample "$tmp/walk.glb" --time $t --json > "$tmp/b.json" || fail "sample walk.glb"
    "$cli" sample "$tmp/skc/02_01.skc" --time $t --json > "$tmp/c.json" || fail "sample 02_01.skc"
    "$cli" sample "$tmp/walk_skc.glb" --time $t --json > "$tmp/d.json" || fail "sample walk_skc.glb"
    python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" "$tmp/d.json" $t <<'PY' || fail "samples differ at t = $t"
import json, sys
w = [{n["name"]: n["world"][12:15] for n in json.load(open(f))["nodes"]} for f in sys.argv[1:5]]
def worst(a, b, scale=1.0):
    assert set(a) == set(b), set(a) ^ set(b)
    return max(abs(a[k][i] - scale * b[k][i]) for k in a for i in range(3))
e1 = worst(w[0], w[1])   # metres: .bvh (--scale) and its .glb
e2 = worst(w[2], w[3])   # CMU units: the .skc and its .glb (frames as LINEAR keys)
assert e1 < 1e-6 and e2 < 1e-4, (e1, e2)
print("t = %s: .bvh vs .glb %.2g m, .skc vs its .glb %.2g units" % (sys.argv[5], e1, e2))
PY
done
sk_done cli_validate_convert
