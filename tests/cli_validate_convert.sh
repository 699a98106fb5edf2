#!/usr/bin/env bash
# skelanim convert on textured models, then the Khronos glTF validator (npm
# gltf-validator, pinned in tools/validator) on the .glb written: any error
# fails. CesiumMan (skinned, a JPEG in its BIN chunk, a sampler) and
# AnimatedCube (a .gltf with two PNG files beside it: they are embedded).
# Warnings are printed but do not fail. Then a file that cannot be read gives
# one message naming it once, and exit status 1.
# Environment (set by ctest): SK_SOURCE_DIR, SK_BINARY_DIR, SK_CLI, SK_SHARED_DIR.
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }

src=${SK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${SK_BINARY_DIR:-$src/build}
cli=${SK_CLI:-$bin/skelanim}
shared=${SK_SHARED_DIR:-$src/../shared}
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

if [ ! -d "$shared/assets/gltf/CesiumMan" ]; then
    echo "note: $shared/assets/gltf is absent: only the error messages were checked"
    exit 0
fi
command -v node >/dev/null 2>&1 || fail "node is not installed: the glTF validator needs Node.js (apt-get install nodejs npm)"
if [ ! -f "$validator/node_modules/gltf-validator/package.json" ]; then
    command -v npm >/dev/null 2>&1 ||
        fail "npm is not installed and $validator/node_modules is missing: cannot install gltf-validator (apt-get install npm)"
    npm ci --prefix "$validator" --no-audit --no-fund >&2 ||
        fail "npm ci --prefix $validator failed (is the npm registry reachable?)"
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
echo "1 passed, 0 failed"
