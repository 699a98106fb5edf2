"""Convert a CMU capture stored as FBX into a BVH file, with Blender.

    blender -b --factory-startup --python scripts/fbx_to_bvh_blender.py -- IN.fbx OUT.bvh

What it does, in order:
  1. imports IN.fbx (Blender's FBX importer, default axes: the armature ends up +Z up);
  2. rotates the armature object by -90 degrees about X and applies that rotation to the
     armature data, so the rest pose and the root motion are +Y up, as in the CMU BVH
     releases; the pose keys are relative to the rest pose and are left as they are;
  3. exports the scene's frame range with Blender's BVH exporter (rotation order XYZ,
     position channels on the root only, Blender's frame rate of the imported take);
  4. writes the root's OFFSET as 0 0 0: Blender's exporter writes the root's rest position
     there but absolute positions in the root's channels, so a reader adding the two would
     count the rest position twice (the CMU BVH releases also have a zero root OFFSET).

Units are those of the FBX (the CMU FBX files carry CMU units: 0.056444 m per unit).
Blender 3.x; no other dependency.
"""

import math
import sys

import bpy


def main(argv):
    if "--" not in argv or len(argv) - argv.index("--") != 3:
        sys.stderr.write("usage: blender -b --python fbx_to_bvh_blender.py -- IN.fbx OUT.bvh\n")
        sys.exit(2)
    src, dst = argv[argv.index("--") + 1:]

    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=src)

    arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
    if len(arms) != 1:
        sys.stderr.write("%s: expected one armature, found %d\n" % (src, len(arms)))
        sys.exit(1)
    arm = arms[0]

    act = arm.animation_data.action if arm.animation_data else None
    if act is None:
        sys.stderr.write("%s: the armature has no action\n" % src)
        sys.exit(1)
    f0, f1 = (int(round(v)) for v in act.frame_range)

    bpy.ops.object.select_all(action="DESELECT")
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    arm.rotation_mode = "XYZ"
    arm.rotation_euler[0] -= math.pi / 2.0
    bpy.ops.object.transform_apply(location=False, rotation=True, scale=False)

    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = f0, f1
    bpy.ops.export_anim.bvh(filepath=dst, frame_start=f0, frame_end=f1,
                            rotate_mode="XYZ", root_transform_only=True)
    with open(dst) as f:
        lines = f.readlines()
    root = next(i for i, l in enumerate(lines) if l.startswith("ROOT "))
    off = next(i for i in range(root, len(lines)) if lines[i].strip().startswith("OFFSET"))
    lines[off] = lines[off][:lines[off].index("OFFSET")] + "OFFSET 0.000000 0.000000 0.000000\n"
    with open(dst, "w") as f:
        f.writelines(lines)
    print("fbx_to_bvh: %s -> %s, frames %d..%d at %g fps" %
          (src, dst, f0, f1, scene.render.fps / scene.render.fps_base))


main(sys.argv)
