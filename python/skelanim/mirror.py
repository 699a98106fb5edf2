"""Humanoid maps (which joint is the hips, each arm and leg bone), left/right mirror pairs and the
mirror of a clip (anim/retarget.h, anim/mirror.h)."""
import numpy as np

from ._lib import C, call, cstr, ffi, pystr
from .core import Clip

BONES = tuple(pystr(C.sk_humanoid_bone_name(i)) for i in range(C.SK_HUMANOID_BONE_COUNT))
HOW = ('unmapped', 'name', 'topology', 'user')
AXES = {'x': 0, 'y': 1, 'z': 2}


def _bone(bone):
    """A bone index from its name (as BONES spells it, any case) or its index."""
    if isinstance(bone, str):
        b = C.sk_humanoid_bone_from_name(cstr(bone))
        if b < 0:
            raise KeyError('no humanoid bone %r (bones: %s)' % (bone, ', '.join(BONES)))
        return int(b)
    b = int(bone)
    if not 0 <= b < len(BONES):
        raise KeyError('humanoid bone %d out of range' % b)
    return b


def bone_mirror(bone):
    """The other side's bone name ('left_hand' -> 'right_hand'; centre bones are their own)."""
    return BONES[C.sk_humanoid_bone_mirror(_bone(bone))]


def bone_required(bone):
    """True for the bones every map must have (hips, spine, head, each side's arm and leg)."""
    return bool(C.sk_humanoid_bone_required(_bone(bone)))


class HumanoidMap:
    """Which joint of a skeleton is each humanoid bone. joints: {bone name: joint index} of the
    bones mapped; how: {bone name: 'name' | 'topology' | 'user'}; scheme: the naming scheme that
    matched ('mixamo', 'cmu', ..., 'skelanim', or 'topology')."""

    def __init__(self, skeleton, c):
        self.skeleton, self._c = skeleton, c

    @classmethod
    def find(cls, skeleton, rest=None, allocator=None):
        """The map of skeleton, by names then topology; rest: a Pose to read positions from (None:
        the skeleton's rest). InvalidData naming the bones missing when a required one is not found."""
        m = ffi.new('sk_humanoid_map *')
        rp = ffi.NULL if rest is None else rest.c
        if allocator is None:
            call(C.sk_humanoid_map_find, skeleton._p, rp, m)
        else:
            call(C.sk_humanoid_map_find_alloc, skeleton._p, rp, allocator.c, m)
        return cls(skeleton, m)

    @property
    def joints(self):
        return {BONES[b]: int(self._c.joint[b]) for b in range(len(BONES)) if self._c.joint[b] >= 0}

    @property
    def how(self):
        return {BONES[b]: HOW[self._c.how[b]] for b in range(len(BONES)) if self._c.joint[b] >= 0}

    @property
    def scheme(self):
        return pystr(self._c.scheme)

    def __getitem__(self, bone):
        """The joint index of a bone (-1 when unmapped)."""
        return int(self._c.joint[_bone(bone)])

    def set(self, bone, joint_name):
        """Maps bone to the joint with this name (None or '' clears it)."""
        call(C.sk_humanoid_map_set, self._c, self.skeleton._p, _bone(bone), cstr(joint_name or ''))

    def check(self):
        """Raises (InvalidArgument / InvalidData with the library's message) unless every required
        bone is mapped, no joint twice, and each joint's ancestors hold the bones above it."""
        call(C.sk_humanoid_map_check, self._c, self.skeleton._p)

    def leg_length(self, rest=None):
        """Hip-to-knee plus knee-to-ankle at rest, the mean of both legs (0 without a leg bone)."""
        return float(C.sk_humanoid_leg_length(self.skeleton._p, ffi.NULL if rest is None else rest.c, self._c))

    def stands(self, pose=None):
        """Whether pose (None: the rest) stands: each leg's hip-to-foot direction within 45 degrees
        of straight down from the head (sk_humanoid_pose_stands). A .bvh exported with its joint
        orients baked in does not stand at rest."""
        return bool(C.sk_humanoid_pose_stands(self.skeleton._p, ffi.NULL if pose is None else pose.c, self._c))

    def pose_like(self, poses, like_map, like_rest=None):
        """A Pose of this skeleton made from poses (frames of its clip: a Pose or a list) in which
        every mapped bone points as like_map's skeleton's does at like_rest (None: its rest), each
        bone keeping its roll, averaged over the poses (sk_humanoid_pose_like): a retargeting rest
        for a skeleton whose own rest does not stand."""
        from .core import Pose
        poses = [poses] if hasattr(poses, 'c') else list(poses)
        arr = ffi.new('sk_pose[]', max(len(poses), 1))
        for i, p in enumerate(poses):
            arr[i] = p.c[0]
        out = Pose(self.skeleton, weights=bool(poses) and poses[0].weights is not None)
        call(C.sk_humanoid_pose_like, self.skeleton._p, self._c, arr, len(poses), like_map.skeleton._p,
             ffi.NULL if like_rest is None else like_rest.c, like_map._c, ffi.NULL, out.c)
        return out

    def copy(self):
        m = ffi.new('sk_humanoid_map *', self._c[0])
        return HumanoidMap(self.skeleton, m)

    def __repr__(self):
        return '<HumanoidMap %s: %d bones>' % (self.scheme, len(self.joints))


def mirror_pairs(skeleton, humanoid=None):
    """(k, 2) uint32 array of (left joint, right joint) pairs: the humanoid map's left/right bones
    (humanoid: a HumanoidMap, or None for names only), then joints whose names differ by a side
    token (_l/_r, Left/Right, .L/.R, ...)."""
    hm = ffi.NULL if humanoid is None else humanoid._c
    count = ffi.new('uint32_t *')
    call(C.sk_skeleton_mirror_pairs, skeleton._p, hm, ffi.NULL, 0, count)
    out = np.zeros((int(count[0]), 2), np.uint32)
    if len(out):
        call(C.sk_skeleton_mirror_pairs, skeleton._p, hm, ffi.cast('uint32_t (*)[2]', ffi.from_buffer(out)),
             len(out), count)
    return out


def mirror_clip(clip, skeleton, pairs=None, humanoid=None, axis='x', name=None):
    """The clip reflected across the plane normal to axis ('x', 'y', 'z'; x: the character's left
    is +X), each left joint taking its right partner's place. pairs: (k, 2) joint pairs (None:
    mirror_pairs(skeleton, humanoid)). Returns a new Clip (name: name or the source's + '_mirrored')."""
    d = ffi.new('sk_clip_mirror_desc *')
    if axis not in AXES:
        raise ValueError('mirror axis must be x, y or z, got %r' % (axis,))
    d.axis = AXES[axis]
    keep = []
    if pairs is not None:
        p = np.ascontiguousarray(pairs, np.int64)
        if p.ndim != 2 or p.shape[1] != 2 or len(p) == 0:
            raise ValueError('mirror pairs must be a (k, 2) array of joint indices with k > 0')
        if (p < 0).any() or (p >= 2 ** 32).any():
            raise ValueError('mirror pairs: joint index out of range')
        p = p.astype(np.uint32)
        keep.append(p)
        d.pairs = ffi.cast('uint32_t (*)[2]', ffi.from_buffer(p))
        d.pair_count = len(p)
    elif humanoid is not None:
        d.map = humanoid._c
    if name is not None:
        nm = ffi.new('char[]', cstr(name))
        keep.append(nm)
        d.name = nm
    out = ffi.new('sk_clip **')
    call(C.sk_clip_mirror, clip._p, skeleton._p, d, ffi.NULL, out)
    return Clip(out[0])


def turn_clip(clip, skeleton, yaw):
    """The clip turned by yaw radians about +Y through the origin (positive: +Z towards +X): the root
    joints' translation and rotation keys turned, the rest copied. Returns a new Clip."""
    out = ffi.new('sk_clip **')
    call(C.sk_clip_turn, clip._p, skeleton._p, float(yaw), ffi.NULL, out)
    return Clip(out[0])
