"""Inverse kinematics on chains: FABRIK, CCD, two-bone, Jacobian transpose, DLS, aim; joint limits
(hinge, swing-twist, Euler), the low-level two-bone step, solving on model matrices, several
effectors. Quaternions are (x, y, z, w); vectors (x, y, z); transforms the 10 floats of a pose row."""
import math

import numpy as np

from ._lib import C, call, cstr, ffi, mat4_cm, mat4_rows, ptr, pystr

STOPS = tuple(pystr(C.sk_ik_stop_string(i)) for i in range(5))
LIMIT_TYPES = ('none', 'hinge', 'swing_twist', 'euler')
_OPTION_FIELDS = ('tolerance', 'angle_tolerance', 'max_iterations', 'time_budget_us', 'stall_iterations',
                  'stall_ratio', 'fk_blend', 'max_step', 'damping', 'soft', 'max_stretch', 'max_angle')


def solver_id(name):
    out = ffi.new('sk_ik_solver *')
    if not C.sk_ik_solver_parse(cstr(name), out):
        raise ValueError('unknown IK solver %r (fabrik, ccd, twobone, jt, dls, aim)' % name)
    return int(out[0])


def chain(skeleton, root, tip):
    """Joint indices from root down to tip (names or indices), root first (uint32 array)."""
    cap = skeleton.joint_count
    out, count = np.zeros(cap, np.uint32), ffi.new('uint32_t *')
    buf = ffi.cast('uint32_t *', ffi.from_buffer(out))
    if isinstance(root, str) and isinstance(tip, str):
        call(C.sk_ik_chain_find_named, skeleton._p, cstr(root), cstr(tip), buf, cap, count)
    else:
        call(C.sk_ik_chain_find, skeleton._p, skeleton.index(root), skeleton.index(tip), buf, cap, count)
    return out[:count[0]].copy()


def _vec3(c, v):
    c.x, c.y, c.z = (float(x) for x in v)


def _finite(name, values):
    a = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError('%s must be finite, got %s' % (name, a.tolist()))
    return a


def _quat(c, q, name='rotation'):
    q = _finite(name, q).ravel()
    if q.shape != (4,):
        raise ValueError('%s must have 4 values (x, y, z, w)' % name)
    c.x, c.y, c.z, c.w = (float(x) for x in q)


def _q(c):
    return np.array([c.x, c.y, c.z, c.w], np.float32)


class Limit:
    """A joint limit (sk_ik_limit): type 'hinge' (angle about axis in [min, max]), 'swing_twist'
    (twist about axis in [min, max], the axis swinging within cone), 'euler' (rel = Rz Ry Rx, each
    angle within euler_min..euler_max) or 'none'. Angles in radians; axis None = the default axis
    (hinge +X; twist: toward the next joint of the chain); reference None = the joint's rest
    rotation (the limit bounds rel, with local rotation = reference * rel)."""

    def __init__(self, type='hinge', axis=None, min=0.0, max=0.0, cone=0.0, euler_min=(0, 0, 0),
                 euler_max=(0, 0, 0), reference=None):
        if type not in LIMIT_TYPES:
            raise ValueError('limit type must be one of %s' % ', '.join(LIMIT_TYPES))
        self.type, self.axis, self.min, self.max, self.cone = type, axis, float(min), float(max), float(cone)
        self.euler_min, self.euler_max, self.reference = tuple(euler_min), tuple(euler_max), reference

    def _fill(self, c):
        _finite('limit angles', [self.min, self.max, self.cone, *self.euler_min, *self.euler_max])
        c.type = LIMIT_TYPES.index(self.type)
        if self.axis is not None:
            _vec3(c.axis, _finite('limit axis', self.axis))
        c.min, c.max, c.cone = self.min, self.max, self.cone
        _vec3(c.euler_min, self.euler_min)
        _vec3(c.euler_max, self.euler_max)
        if self.reference is not None:
            _quat(c.reference, self.reference, 'limit reference')

    @classmethod
    def _from(cls, c):
        if c.type == 0:
            return None
        axis = (c.axis.x, c.axis.y, c.axis.z)
        ref = _q(c.reference)
        return cls(LIMIT_TYPES[c.type], axis if any(axis) else None, c.min, c.max, c.cone,
                   (c.euler_min.x, c.euler_min.y, c.euler_min.z), (c.euler_max.x, c.euler_max.y, c.euler_max.z),
                   tuple(ref) if ref.any() else None)

    def _c(self):
        c = ffi.new('sk_ik_limit *')
        self._fill(c)
        return c

    def clamp(self, rel, default_axis=None):
        """rel (a unit quaternion relative to the reference) moved into the limit. default_axis:
        used when axis is None (None: +X for a hinge, +Y for a twist)."""
        q, a = ffi.new('sk_quat *'), ffi.new('sk_vec3 *')
        _quat(q, rel)
        if default_axis is not None:
            _vec3(a, _finite('default_axis', default_axis))
        return _q(C.sk_ik_limit_clamp(self._c(), a[0], q[0]))

    def check(self, rel, default_axis=None, eps=1e-4):
        """True when rel satisfies the limit within eps radians."""
        q, a = ffi.new('sk_quat *'), ffi.new('sk_vec3 *')
        _quat(q, rel)
        if default_axis is not None:
            _vec3(a, _finite('default_axis', default_axis))
        return bool(C.sk_ik_limit_check(self._c(), a[0], q[0], float(eps)))

    def __repr__(self):
        if self.type == 'euler':
            return '<Limit euler (%.3f, %.3f, %.3f) .. (%.3f, %.3f, %.3f)>' % (*self.euler_min, *self.euler_max)
        return '<Limit %s %.3f .. %.3f%s>' % (self.type, self.min, self.max,
                                              ' cone %.3f' % self.cone if self.type == 'swing_twist' else '')


def _limits_c(limits, n):
    if limits is None:
        return ffi.NULL
    if len(limits) != n:
        raise ValueError('limits: %d entries for a chain of %d joints' % (len(limits), n))
    arr = ffi.new('sk_ik_limit[]', n)
    for i, lim in enumerate(limits):
        if lim is not None:
            lim._fill(arr[i])
    return arr


def _mannequin_limits(fn, skeleton):
    n = skeleton.joint_count
    arr = ffi.new('sk_ik_limit[]', n)
    call(fn, skeleton._p, arr, n)
    return [Limit._from(arr[i]) for i in range(n)]


def mannequin_leg_limits(skeleton):
    """Per joint of the mannequin's skeleton, its leg limit (hips, knees, ankles) or None."""
    return _mannequin_limits(C.sk_mannequin_leg_limits, skeleton)


def mannequin_arm_limits(skeleton):
    """Per joint of the mannequin's skeleton, its arm limit (shoulders, elbows) or None."""
    return _mannequin_limits(C.sk_mannequin_arm_limits, skeleton)


def _chain_c(skeleton, joints, limits):
    js = np.ascontiguousarray(joints, np.uint32)
    ch = ffi.new('sk_ik_chain *')
    ch.skeleton = skeleton._p
    ch.joints = ffi.cast('uint32_t *', ffi.from_buffer(js))
    ch.count = len(js)
    lim = _limits_c(limits, len(js))
    ch.limits = lim
    return ch, (js, lim)


def _options_c(solver, plane_normal, options):
    o = ffi.new('sk_ik_options *')
    o.solver = solver_id(solver) if isinstance(solver, str) else int(solver)
    if plane_normal is not None:
        _vec3(o.plane_normal, plane_normal)
    for k, v in options.items():
        if k not in _OPTION_FIELDS:
            raise TypeError('unknown IK option %r' % k)
        setattr(o, k, v)
    return o


def _result(res):
    return {'stop': STOPS[res.stop], 'iterations': int(res.iterations), 'error': float(res.error),
            'residual': float(res.residual), 'orientation_error': float(res.orientation_error),
            'chain_length': float(res.chain_length), 'reachable': bool(res.reachable), 'stretch': float(res.stretch)}


def solve(skeleton, pose, joints, target, solver='fabrik', pole=None, orientation=None, plane_normal=None,
          limits=None, model=None, root=None, **options):
    """Solves the chain (joint indices, root first) toward target (model space) and writes the
    chain's local rotations into pose. limits: None or one Limit (or None) per chain joint.
    Options: those of sk_ik_options by name (tolerance, max_iterations, fk_blend, soft,
    max_stretch, ...). Returns a dict: stop, iterations, error, residual, orientation_error,
    chain_length, reachable, stretch.
    model: (joints, 4, 4) matrices of the pose under root (sk_ik_solve_model): the chain's parent
    is read from them, the target is in their space, and the dict gets 'model', the matrices with
    the chain's subtree brought up to date."""
    ch, keep = _chain_c(skeleton, joints, limits)
    n = int(ch.count)
    t = ffi.new('sk_ik_target *')
    _vec3(t.position, target)
    if pole is not None:
        t.has_pole = True
        _vec3(t.pole, pole)
    if orientation is not None:
        t.orientation.x, t.orientation.y, t.orientation.z, t.orientation.w = (float(x) for x in orientation)
    o = _options_c(solver, plane_normal, options)
    size = C.sk_ik_scratch_size(n)
    scratch = ffi.new('char[]', max(int(size), 1))
    res = ffi.new('sk_ik_result *')
    if model is None:
        call(C.sk_ik_solve, ch, t, o, pose.c, scratch, size, res)
        return _result(res)
    m = mat4_cm(model)  # a copy the library updates
    r = None if root is None else mat4_cm(root)  # kept alive through the call
    rb = ffi.NULL if r is None else ptr(r, 'sk_mat4 *')
    call(C.sk_ik_solve_model, ch, t, o, pose.c, rb, ffi.cast('sk_mat4 *', ffi.from_buffer(m)), len(m), scratch, size,
         res)
    out = _result(res)
    out['model'] = mat4_rows(m)
    return out


def _transform_c(name, tr):
    a = _finite(name, tr).astype(np.float32).ravel()
    if a.shape != (10,):
        raise ValueError('%s: a transform is 10 floats (t xyz, r xyzw, s xyz), got %d' % (name, a.size))
    c = ffi.new('sk_transform *')
    ffi.memmove(c, a.tobytes(), 40)
    return c


def two_bone(start, mid, end, target, pole=None, soft=0.0):
    """The low-level two-bone step (sk_ik_two_bone): start, mid, end are the three joints' model-
    space transforms (10 floats each, or (4, 4) matrices of rigid joints); returns (start_correction,
    mid_correction, reached): quaternions to post-multiply onto the start and middle joints' local
    rotations (local.r = local.r * correction)."""
    cs = [_transform_c(n, _as_transform(v)) for n, v in (('start', start), ('mid', mid), ('end', end))]
    t = ffi.new('sk_ik_target *')
    _vec3(t.position, _finite('target', target))
    if pole is not None:
        t.has_pole = True
        _vec3(t.pole, _finite('pole', pole))
    o = ffi.new('sk_ik_options *')
    o.soft = soft
    qa, qb, reached = ffi.new('sk_quat *'), ffi.new('sk_quat *'), ffi.new('bool *')
    if not C.sk_ik_two_bone(cs[0], cs[1], cs[2], t, o, qa, qb, reached):
        raise ValueError('two_bone: non-finite input')
    return _q(qa), _q(qb), bool(reached[0])


def _as_transform(v):
    """10 floats as given, or a rigid (4, 4) matrix turned into t and r (scale 1)."""
    a = np.asarray(v, np.float64)
    if a.shape != (4, 4):
        return a
    m = a[:3, :3]
    w = math.sqrt(max(0.0, 1 + m[0, 0] + m[1, 1] + m[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + m[0, 0] - m[1, 1] - m[2, 2])) / 2, m[2, 1] - m[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] + m[1, 1] - m[2, 2])) / 2, m[0, 2] - m[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - m[0, 0] - m[1, 1] + m[2, 2])) / 2, m[1, 0] - m[0, 1])
    return np.r_[a[:3, 3], [x, y, z, w], [1.0, 1.0, 1.0]]


def solve_multi(skeleton, pose, root, effectors, **options):
    """Several end effectors at once (FABRIK with sub-bases): effectors {joint (index or name):
    target (x, y, z)}, each joint descending from root. Writes the subtree's rotations into pose;
    returns the result dict (error: the largest effector error). Limits are not applied."""
    items = list(effectors.items())
    eff = ffi.new('sk_ik_effector[]', max(len(items), 1))
    for i, (j, tgt) in enumerate(items):
        eff[i].joint = skeleton.index(j)
        _vec3(eff[i].target, _finite('effector target', tgt))
    o = _options_c('fabrik', None, options)
    size = C.sk_ik_multi_scratch_size(skeleton._p)
    scratch = ffi.new('char[]', max(int(size), 1))
    res = ffi.new('sk_ik_result *')
    call(C.sk_ik_solve_multi, skeleton._p, skeleton.index(root), eff, len(items), o, pose.c, scratch, size, res)
    return _result(res)


def solver_name(solver):
    return pystr(C.sk_ik_solver_string(solver))
