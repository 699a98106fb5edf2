"""Joint masks, additive poses, the layer stack (anim/layers.h) and root motion
(anim/rootmotion.h). Masks are float32 arrays, one 0..1 value per joint."""
import collections
import math

import numpy as np

from ._lib import C, call, cstr, ffi, ptr
from .core import Pose
from .memory import c_of, owned

MODES = {'override': 0, 'additive': 1, 'additive_nlerp': 2}
RootDelta = collections.namedtuple('RootDelta', 'translation yaw')


def _mask(skeleton, mask, name='mask'):
    if mask is None:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.float32 or mask.shape != (skeleton.joint_count,) \
            or not mask.flags['C_CONTIGUOUS']:
        mask = np.ascontiguousarray(mask, np.float32)
        if mask.shape != (skeleton.joint_count,):
            raise ValueError('%s must have one value per joint (%d), got shape %s'
                             % (name, skeleton.joint_count, mask.shape))
    if not np.all(np.isfinite(mask)):
        raise ValueError('%s must be finite' % name)
    return mask


def mask(skeleton, value=0.0, subtree=None, joints=None, set_to=1.0):
    """A mask: every joint value, then the subtree of the joint named subtree and the joints named in
    joints set to set_to (KeyError-like InvalidArgument for an unknown name)."""
    m = np.empty(skeleton.joint_count, np.float32)
    C.sk_mask_fill(skeleton._p, ptr(m, 'float *'), float(value))
    if subtree is not None:
        set_subtree(skeleton, m, subtree, set_to)
    if joints is not None:
        set_joints(skeleton, m, joints, set_to)
    return m


def set_subtree(skeleton, mask, joint, value):
    """Sets the named joint and its descendants to value in mask (a float32 array, in place)."""
    if mask.dtype != np.float32 or mask.shape != (skeleton.joint_count,) or not mask.flags['C_CONTIGUOUS']:
        raise ValueError('mask must be a C-contiguous float32 array of %d values' % skeleton.joint_count)
    call(C.sk_mask_set_subtree, skeleton._p, cstr(joint), float(value), ffi.cast('float *', ffi.from_buffer(mask)))


def set_joints(skeleton, mask, joints, value):
    """Sets the named joints (a list of names) to value in mask (in place)."""
    if mask.dtype != np.float32 or mask.shape != (skeleton.joint_count,) or not mask.flags['C_CONTIGUOUS']:
        raise ValueError('mask must be a C-contiguous float32 array of %d values' % skeleton.joint_count)
    names = [ffi.new('char[]', cstr(j)) for j in joints]
    arr = ffi.new('char *[]', names or 1)
    call(C.sk_mask_set_joints, skeleton._p, arr, len(names), float(value), ffi.cast('float *', ffi.from_buffer(mask)))


def make_additive(skeleton, pose, reference):
    """The delta of pose relative to reference: t - t_ref, inverse(r_ref) r, s / s_ref (a Pose)."""
    out = Pose(skeleton, weights=pose.weights is not None and reference.weights is not None)
    call(C.sk_pose_make_additive, skeleton._p, pose.c, reference.c, out.c)
    return out


def apply_additive(skeleton, pose, delta, weight=1.0, mask=None, nlerp=False):
    """pose (+) weight * delta, in place (per joint scaled by mask); returns pose. The delta's
    rotation is weighted by slerp from the identity, or with nlerp=True by normalised lerp (as
    ozz-animation and Unreal do; cheaper)."""
    w = float(weight)
    if not math.isfinite(w):
        raise ValueError('additive weight must be finite')
    m = _mask(skeleton, mask)
    fn = C.sk_pose_apply_additive_nlerp if nlerp else C.sk_pose_apply_additive
    call(fn, skeleton._p, pose.c, delta.c, w, ffi.NULL if m is None else ptr(m, 'float *'))
    return pose


class Layer:
    """One layer of the stack: pose (override) or delta (additive, or additive_nlerp: its rotation
    weighted by normalised lerp), weight 0..1, mask (None: the whole body)."""

    def __init__(self, pose, weight=1.0, mode='override', mask=None):
        if mode not in MODES:
            raise ValueError('layer mode must be override, additive or additive_nlerp')
        self.pose, self.weight, self.mode, self.mask = pose, float(weight), mode, mask


def apply_layers(skeleton, pose, layers):
    """Applies the layers in order on top of pose (the base layer), in place; returns pose."""
    arr = ffi.new('sk_layer[]', max(len(layers), 1))
    keep = []
    for i, lay in enumerate(layers):
        if not math.isfinite(lay.weight):
            raise ValueError('layer %d: weight must be finite' % i)
        arr[i].mode, arr[i].weight, arr[i].pose = MODES[lay.mode], lay.weight, lay.pose.c
        m = _mask(skeleton, lay.mask, 'layer %d mask' % i)
        if m is not None:
            keep.append(m)
            arr[i].mask = ptr(m, 'float *')
    call(C.sk_layers_apply, skeleton._p, pose.c, arr, len(layers))
    return pose


# ---- root motion ------------------------------------------------------------------------------------

def _delta(d):
    return RootDelta((float(d.translation.x), float(d.translation.y), float(d.translation.z)), float(d.yaw))


def _delta_c(d):
    c = ffi.new('sk_root_delta *')
    t, yaw = d
    vals = [float(x) for x in t] + [float(yaw)]
    if len(vals) != 4 or not all(math.isfinite(v) for v in vals):
        raise ValueError('a root delta is ((x, y, z), yaw), finite')
    c.translation.x, c.translation.y, c.translation.z, c.yaw = vals
    return c


class RootMotion:
    """The root joint's horizontal (XZ) motion and yaw of a clip, delivered as RootDelta
    ((x, y, z), yaw) in the root's frame at the start of the step: apply as position +=
    rotate_y(character yaw, translation); character yaw += yaw."""

    def __init__(self, clip, skeleton, joint=0, allocator=None):
        out = ffi.new('sk_root_motion **')
        call(C.sk_root_motion_create, clip._p, skeleton._p, skeleton.index(joint), c_of(allocator), out)
        self._p = owned(out[0], C.sk_root_motion_destroy, allocator)
        self.skeleton = skeleton

    @property
    def joint(self):
        return int(C.sk_root_motion_joint(self._p))

    def delta(self, before, after):
        """The motion between two states of one Player (before: a copy taken before advancing)."""
        return _delta(C.sk_root_motion_delta(self._p, before.c, after.c))

    def between(self, a, b):
        """The motion between two clip times of one cycle."""
        return _delta(C.sk_root_motion_between(self._p, float(a), float(b)))

    def strip(self, pose):
        """Takes the motion out of a sampled pose, in place: the root keeps its first frame's
        horizontal position and yaw. Returns pose."""
        call(C.sk_root_motion_strip, self._p, pose.c)
        return pose


def delta_identity():
    return _delta(C.sk_root_delta_identity())


def delta_compose(a, b):
    """a then b (b in the frame a reaches)."""
    ca, cb = _delta_c(a), _delta_c(b)  # kept alive through the call
    return _delta(C.sk_root_delta_compose(ca[0], cb[0]))


def delta_inverse(a):
    ca = _delta_c(a)
    return _delta(C.sk_root_delta_inverse(ca[0]))


def delta_blend(deltas, weights):
    """Weighted mean of deltas (weights normalised; all zero: the identity)."""
    if len(deltas) != len(weights):
        raise ValueError('delta_blend: %d deltas, %d weights' % (len(deltas), len(weights)))
    arr = ffi.new('sk_root_delta[]', max(len(deltas), 1))
    for i, d in enumerate(deltas):
        c = _delta_c(d)
        arr[i] = c[0]
    w = np.ascontiguousarray(weights, np.float32)
    if not np.all(np.isfinite(w)):
        raise ValueError('delta_blend: weights must be finite')
    return _delta(C.sk_root_delta_blend(arr, ptr(w, 'float *') if len(w) else ffi.NULL, len(deltas)))
