#!/usr/bin/env bash
# Regenerates tests/data/import/: FBX and COLLADA files made from the shared glTF
# models by two tools other than ours (Blender's exporters and assimp's), the
# reference data of the import tests. Needs Debian's blender, assimp-utils and
# python3-numpy (not installed by scripts/setup.sh: the committed files are the
# reference, CI never regenerates them).
#   scripts/make_import_refs.sh [SHARED_DIR]     (default ../shared)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-../shared}
g=$shared/assets/gltf
out=tests/data/import
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

for m in BoxAnimated CesiumMan RiggedFigure RiggedSimple SimpleSkin; do
  src=$g/$m/$m.glb
  [[ -f $src ]] || src=$g/$m/$m.gltf
  (cd "$tmp" && blender -b --factory-startup --python "$OLDPWD/scripts/blender_export_refs.py" -- "$OLDPWD/$src" "$tmp/$m") >/dev/null
  cp "$tmp/$m.blender.fbx" "$tmp/$m.blender.dae" "$out/"
done
cp "$tmp/Image_0.jpg" "$out/"   # CesiumMan's texture, which the COLLADA file names

# assimp's exporters: COLLADA and ASCII FBX of the untextured models, and one
# binary FBX (assimp 5.2.5 cannot read its own binary FBX back; its COLLADA
# export of a textured model, CesiumMan, crashes: docs/import.md).
for m in BoxAnimated RiggedFigure RiggedSimple; do
  assimp export "$g/$m/$m.glb" "$out/$m.assimp.dae" -fcollada >/dev/null
  assimp export "$g/$m/$m.glb" "$out/$m.assimp.fbxa.fbx" -ffbxa >/dev/null
done
assimp export "$g/RiggedSimple/RiggedSimple.glb" "$out/RiggedSimple.assimp.fbx" -ffbx >/dev/null
echo "wrote $(ls "$out" | wc -l) files in $out"
