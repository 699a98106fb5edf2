"""Reads a BVH file with Blender's own BVH importer and dumps every bone's
head position (the joint's world position) at up to 40 evenly spaced frames,
in the file's axes and units, as JSON: the reference tests/test_bvh_write.c
compares our reader's reading of the same file with.

Run headless (Debian's Blender 3.4):
    blender -b --factory-startup --python scripts/blender_bvh_readback.py -- IN.bvh OUT.json

Debian's Blender 3.4 on Python 3.11: its importer opens the file with the
removed "rU" mode, which the script maps to "r". Import settings: scale 1, rotations in the file's own Euler orders
("NATIVE"), no frame-rate scaling, frame i of the file at scene frame 1 + i.
Blender turns the file's +Y up into its +Z up (axis_up="Y",
axis_forward="-Z"): a point (x, y, z) of Blender is (x, z, -y) of the file,
which the dump undoes.
"""
import builtins
import json
import sys

import bpy

# Debian's Blender 3.4 runs on Python 3.11, whose open() no longer takes the
# "U" mode its BVH importer still passes: drop the letter.
_open = builtins.open


def _open_without_u(file, mode="r", *args, **kwargs):
    return _open(file, mode.replace("U", ""), *args, **kwargs)


builtins.open = _open_without_u

argv = sys.argv[sys.argv.index("--") + 1:]
if len(argv) != 2:
    sys.exit("usage: blender -b --factory-startup --python blender_bvh_readback.py -- IN.bvh OUT.json")
src, dst = argv

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_anim.bvh(filepath=src, global_scale=1.0, rotate_mode="NATIVE", use_fps_scale=False,
                        frame_start=1, axis_forward="-Z", axis_up="Y", update_scene_fps=True,
                        update_scene_duration=True)
arm = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
with open(src) as f:
    text = f.read()
frames = int(text.split("Frames:")[1].split()[0])
step = max(1, -(-frames // 40))
out = {"file": src.rsplit("/", 1)[-1], "frames": [], "bones": [b.name for b in arm.pose.bones],
       "blender": bpy.app.version_string}
scene = bpy.context.scene
for i in range(0, frames, step):
    scene.frame_set(1 + i)
    pos = []
    for b in arm.pose.bones:
        h = arm.matrix_world @ b.head
        pos.append([round(h.x, 9), round(h.z, 9), round(-h.y, 9)])
    out["frames"].append({"frame": i, "heads": pos})
with open(dst, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print("wrote", dst, len(out["frames"]), "frames of", len(out["bones"]), "bones")
