"""Converts a glTF/GLB file to FBX and COLLADA with Blender's own exporters.

Run headless (Debian's Blender 3.4):
    blender -b --factory-startup --python scripts/blender_export_refs.py -- IN.glb OUT_STEM

Writes OUT_STEM.blender.fbx (binary FBX 7.4) and OUT_STEM.blender.dae. These are
reference files made by a tool other than ours and other than assimp, used by
the import tests (tests/data/import/README.md says how each file was made).
"""
import sys

import numpy

# Blender 3.4's glTF importer still uses the numpy.bool alias that NumPy 1.24
# removed; restore it before the importer is loaded.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
if len(argv) != 2:
    sys.exit("usage: blender -b --factory-startup --python blender_export_refs.py -- IN.glb OUT_STEM")
src, stem = argv

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)

# Every action the importer made, on the armature that plays it: export them all.
scene = bpy.context.scene
actions = list(bpy.data.actions)
frames = [int(a.frame_range[1]) for a in actions] or [1]
scene.frame_start = 0
scene.frame_end = max(frames)

bpy.ops.export_scene.fbx(
    filepath=stem + ".blender.fbx",
    use_selection=False,
    apply_unit_scale=True,
    bake_anim=True,
    bake_anim_use_all_actions=True,
    bake_anim_use_nla_strips=False,
    bake_anim_force_startend_keying=True,
    add_leaf_bones=False,
    path_mode="COPY",
    embed_textures=True,
)
bpy.ops.wm.collada_export(
    filepath=stem + ".blender.dae",
    include_animations=True,
    export_animation_type_selection="sample",
    sampling_rate=1,
    keep_keyframes=True,
)
print("wrote", stem + ".blender.fbx", stem + ".blender.dae")
