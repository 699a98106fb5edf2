"""Retargeting between skeletons (humanoid maps, poses and whole clips)."""
from ._lib import C, Error, call, cstr, ffi, pystr
from .core import Clip, Pose
from .mirror import HumanoidMap

FLAGS = {'match_names': 1, 'no_root_translation': 2, 'ground_rest': 4}
BONES = [pystr(C.sk_humanoid_bone_name(i)) for i in range(C.SK_HUMANOID_BONE_COUNT)]


def humanoid_map(skeleton):
    """{bone name: joint index} of the bones found (sk_humanoid_map_find), and the scheme's name
    (HumanoidMap.find gives the map itself: how each bone was found, set, check, leg_length)."""
    m = HumanoidMap.find(skeleton)
    return m.joints, m.scheme


def standing_rest(skeleton, clip, target, frames=32):
    """For a skeleton whose rest pose does not stand (a .bvh with its joint orients baked in), a
    standing rest and its HumanoidMap for Retargeter(source_rest=..., source_map=...): the map found
    on the clip's first frame, the standing ones of `frames` frames spread over the clip posed like
    the target's rest (HumanoidMap.pose_like), as skelanim's command-line tool does. None when the
    skeleton's own rest stands, or no frame of the clip stands."""
    try:
        if HumanoidMap.find(skeleton).stands():
            return None
    except Error:
        pass
    first = clip.sample(skeleton, 0.0, loop='clamp')
    smap, tmap = HumanoidMap.find(skeleton, rest=first), HumanoidMap.find(target)
    poses = [clip.sample(skeleton, clip.duration * k / frames, loop='clamp') for k in range(frames)]
    poses = [p for p in poses if smap.stands(p)]
    if not poses:
        return None
    return smap.pose_like(poses, tmap), smap


class Retargeter:
    """Maps poses and clips of a source skeleton onto a target skeleton. flags: names of FLAGS
    (match_names, no_root_translation, ground_rest); pairs: [(source joint, target joint)] names
    that override the maps; root_scale 0 = the leg length ratio; source_rest / target_rest: Poses
    to take as the rest poses (None: the skeletons'), source_map / target_map: HumanoidMaps (None:
    found)."""

    def __init__(self, source, target, flags=(), pairs=(), root_scale=0.0, source_rest=None, source_map=None,
                 target_rest=None, target_map=None):
        self.source, self.target = source, target
        d = ffi.new('sk_retarget_desc *')
        d.source, d.target = source._p, target._p
        self._keep = (source_rest, source_map, target_rest, target_map)
        if source_rest is not None:
            d.source_rest = source_rest.c
        if target_rest is not None:
            d.target_rest = target_rest.c
        if source_map is not None:
            d.source_map = source_map._c
        if target_map is not None:
            d.target_map = target_map._c
        d.root_scale = root_scale
        d.flags = sum(FLAGS[f] for f in flags)
        names = [(ffi.new('char[]', cstr(a)), ffi.new('char[]', cstr(b))) for a, b in pairs]
        arr = ffi.new('sk_retarget_pair[]', max(len(names), 1))
        for i, (a, b) in enumerate(names):
            arr[i].source, arr[i].target = a, b
        d.pairs, d.pair_count = arr, len(names)
        out = ffi.new('sk_retarget **')
        call(C.sk_retarget_create, d, ffi.NULL, out)
        self._p = ffi.gc(out[0], C.sk_retarget_destroy)
        self._scratch_size = int(C.sk_retarget_scratch_size(self._p))
        self._scratch = ffi.new('char[]', max(self._scratch_size, 1))

    @property
    def root_scale(self):
        return float(C.sk_retarget_root_scale(self._p))

    def humanoid_map(self, which='source'):
        """The HumanoidMap in use for the 'source' or the 'target' skeleton (a copy)."""
        w = {'source': 0, 'target': 1}[which]
        m = C.sk_retarget_map(self._p, w)
        if m == ffi.NULL:
            return None
        return HumanoidMap(self.source if w == 0 else self.target, ffi.new('sk_humanoid_map *', m[0]))

    @property
    def frame_rotation(self):
        """The rotation (x, y, z, w) taking the source's model frame onto the target's."""
        q = C.sk_retarget_frame_rotation(self._p)
        return (q.x, q.y, q.z, q.w)

    def source_of(self, target_joint):
        """The source joint driving a target joint, or -1."""
        return int(C.sk_retarget_source_of(self._p, target_joint))

    def pose(self, source_pose, fill=None, out=None):
        res = out if out is not None else Pose(self.target, weights=False)
        call(C.sk_retarget_pose, self._p, source_pose.c, fill.c if fill is not None else ffi.NULL, res.c,
             self._scratch, self._scratch_size)
        return res

    def clip(self, source_clip, fill_clip=None):
        out = ffi.new('sk_clip **')
        call(C.sk_retarget_clip, self._p, source_clip._p, fill_clip._p if fill_clip is not None else ffi.NULL,
             ffi.NULL, out)
        return Clip(out[0])
