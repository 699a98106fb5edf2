"""Inverse kinematics on chains: FABRIK, CCD, two-bone, Jacobian transpose, DLS, aim."""
import numpy as np

from ._lib import C, call, cstr, ffi, pystr

STOPS = ('tolerance', 'no_progress', 'iterations', 'time', 'analytic')
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


def solve(skeleton, pose, joints, target, solver='fabrik', pole=None, orientation=None, plane_normal=None,
          **options):
    """Solves the chain (joint indices, root first) toward target (model space) and writes the
    chain's local rotations into pose. Options: those of sk_ik_options by name (tolerance,
    max_iterations, fk_blend, soft, max_stretch, ...). Returns a dict: stop, iterations, error,
    residual, orientation_error, chain_length, reachable, stretch."""
    js = np.ascontiguousarray(joints, np.uint32)
    ch = ffi.new('sk_ik_chain *')
    ch.skeleton = skeleton._p
    ch.joints = ffi.cast('uint32_t *', ffi.from_buffer(js))
    ch.count = len(js)
    t = ffi.new('sk_ik_target *')
    _vec3(t.position, target)
    if pole is not None:
        t.has_pole = True
        _vec3(t.pole, pole)
    if orientation is not None:
        t.orientation.x, t.orientation.y, t.orientation.z, t.orientation.w = (float(x) for x in orientation)
    o = ffi.new('sk_ik_options *')
    o.solver = solver_id(solver) if isinstance(solver, str) else int(solver)
    if plane_normal is not None:
        _vec3(o.plane_normal, plane_normal)
    for k, v in options.items():
        if k not in _OPTION_FIELDS:
            raise TypeError('unknown IK option %r' % k)
        setattr(o, k, v)
    size = C.sk_ik_scratch_size(len(js))
    scratch = ffi.new('char[]', max(int(size), 1))
    res = ffi.new('sk_ik_result *')
    call(C.sk_ik_solve, ch, t, o, pose.c, scratch, size, res)
    return {'stop': STOPS[res.stop], 'iterations': int(res.iterations), 'error': float(res.error),
            'residual': float(res.residual), 'orientation_error': float(res.orientation_error),
            'chain_length': float(res.chain_length), 'reachable': bool(res.reachable), 'stretch': float(res.stretch)}


def solver_name(solver):
    return pystr(C.sk_ik_solver_string(solver))
