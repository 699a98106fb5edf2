#!/usr/bin/env bash
# Exports the built-in mannequin (and the sprite) with the CLI and runs the Khronos glTF
# validator (npm gltf-validator, pinned in tools/validator) on it: any error
# fails the test. Warnings are printed but do not fail.
# It also validates the synthetic .glb test_mannequin writes (8 influences,
# morph targets, 32-bit indices, cubic splines...): test_mannequin is this
# test's ctest fixture (FIXTURES_SETUP synthetic_glb in tests/CMakeLists.txt),
# so ctest runs it first, also for `ctest -R cli_validate_mannequin`, and does
# not run this test when it failed; a missing file is a failure here.
# Without node/npm (or when npm cannot install the validator), tests/lib.sh's
# rule: a failure under CI, else skipped (exit 77) with a note.
# Environment (set by ctest): SK_SOURCE_DIR, SK_BINARY_DIR, SK_CLI.
set -u
source "$(dirname "$0")/lib.sh"

fail() { echo "FAIL: $*" >&2; exit 1; }

src=${SK_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${SK_BINARY_DIR:-$src/build}
cli=${SK_CLI:-$bin/skelanim}
validator="$src/tools/validator"

[ -x "$cli" ] || fail "SK_CLI ($cli) is not an executable"
sk_need_cmd node "the glTF validator needs Node.js: Debian nodejs npm"
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || fail "node does not run"
[ "$node_major" -ge 14 ] || sk_missing "node $node_major is too old for the validator (need >= 14)"

if [ ! -f "$validator/node_modules/gltf-validator/package.json" ]; then
    sk_need_cmd npm "$validator/node_modules is missing and npm installs it: Debian npm"
    echo "installing the pinned gltf-validator: npm ci --prefix $validator"
    npm ci --prefix "$validator" --no-audit --no-fund >&2 ||
        sk_missing "npm ci --prefix $validator failed (is the npm registry reachable?): no validator"
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

# The sprite (content/sprite.h: eight primitives, a material made per colour) written by convert.
"$cli" convert @sprite "$tmp/sprite.glb" >/dev/null || fail "$cli convert @sprite exited $?"
node "$validator/validate.mjs" "$tmp/sprite.glb" || fail "the glTF validator reported errors in the exported sprite"

syn="$bin/synthetic_writer_test.glb"
[ -s "$syn" ] || fail "$syn is absent: test_mannequin (this test's fixture) should have written it"
node "$validator/validate.mjs" "$syn" || fail "the glTF validator reported errors in $syn"

# Exporting to a path that cannot be written fails cleanly.
if "$cli" export-mannequin "$tmp/no/such/dir/m.glb" 2>/dev/null; then
    fail "export-mannequin to a missing directory succeeded"
fi

echo "3 files validated (the exported mannequin and sprite, $syn): ok"
