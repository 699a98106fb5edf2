#!/usr/bin/env bash
# Exports the built-in mannequin with the CLI and runs the Khronos glTF
# validator (npm gltf-validator, pinned in tools/validator) on it: any error
# fails the test. Warnings are printed but do not fail.
# Environment (set by ctest): SK_SOURCE_DIR, SK_BINARY_DIR, SK_CLI.
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }

src=${SK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${SK_BINARY_DIR:-$src/build}
cli=${SK_CLI:-$bin/skelanim}
validator="$src/tools/validator"

[ -x "$cli" ] || fail "SK_CLI ($cli) is not an executable"
command -v node >/dev/null 2>&1 || fail "node is not installed: the glTF validator needs Node.js (apt-get install nodejs npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || fail "node does not run"
[ "$node_major" -ge 14 ] || fail "node $node_major is too old for the validator (need >= 14)"

if [ ! -f "$validator/node_modules/gltf-validator/package.json" ]; then
    command -v npm >/dev/null 2>&1 ||
        fail "npm is not installed and $validator/node_modules is missing: cannot install gltf-validator (apt-get install npm)"
    echo "installing the pinned gltf-validator: npm ci --prefix $validator"
    npm ci --prefix "$validator" --no-audit --no-fund >&2 ||
        fail "npm ci --prefix $validator failed (is the npm registry reachable?)"
fi

tmp=$(mktemp -d) || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
out="$tmp/mannequin.glb"

"$cli" export-mannequin "$out" || fail "$cli export-mannequin exited $?"
[ -s "$out" ] || fail "export-mannequin wrote no file"
# A .glb starts with the magic "glTF" and version 2.
[ "$(head -c 4 "$out")" = "glTF" ] || fail "$out is not a GLB container"

node "$validator/validate.mjs" "$out"
rc=$?
[ $rc -eq 0 ] || fail "the glTF validator reported errors in the exported mannequin (exit $rc)"

# The writer test (test_mannequin) leaves a .glb that uses what the mannequin
# does not (8 influences, morph targets, 32-bit indices, cubic splines...):
# validate it too when it is there.
syn="$bin/synthetic_writer_test.glb"
if [ -f "$syn" ]; then
    node "$validator/validate.mjs" "$syn" || fail "the glTF validator reported errors in $syn"
else
    echo "note: $syn is absent (run test_mannequin first): only the mannequin was validated"
fi

# Exporting to a path that cannot be written fails cleanly.
if "$cli" export-mannequin "$tmp/no/such/dir/m.glb" 2>/dev/null; then
    fail "export-mannequin to a missing directory succeeded"
fi

echo "1 passed, 0 failed"
