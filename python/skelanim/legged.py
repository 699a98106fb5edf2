"""The N-legged IK-only walker (locomotion/legged.h) and the creatures built in code for it
(content/creature.h): a tripod, a quadruped and a hexapod walking on their legs by inverse
kinematics alone, the gait given as a phase offset per leg. World space: metres, +Y up, yaw about
+Y (0 faces +Z)."""
import numpy as np

from ._lib import C, call, ffi, mat4_rows, view
from .core import Asset, Pose
from .ik import _finite
from .memory import c_of, owned
from .world import Terrain

CREATURES = ('tripod', 'quadruped', 'hexapod')
GAITS = ('wave', 'alternate')
FOOT_EVENTS = (None, 'down', 'up')
_OPTIONS = ('step_length', 'step_height', 'min_frequency', 'max_frequency', 'max_tilt')


def _v(c):
    return np.array([c.x, c.y, c.z], np.float32)


def creature(kind, allocator=None):
    """A creature built in code: 'tripod', 'quadruped' or 'hexapod' (skeleton, skinned mesh, no clips)."""
    if kind not in CREATURES:
        raise ValueError('creature: %r is not one of %s' % (kind, ', '.join(CREATURES)))
    out = ffi.new('sk_asset **')
    call(C.sk_creature_create, CREATURES.index(kind), c_of(allocator), out)
    return Asset(out[0], metres_per_unit=1.0, path=kind, allocator=allocator)


def gait(name, leg_count):
    """The named gait ('wave' or 'alternate') for leg_count legs: (phases, duty)."""
    if name not in GAITS:
        raise ValueError('gait: %r is not one of %s' % (name, ', '.join(GAITS)))
    ph = ffi.new('float[8]')
    duty = ffi.new('float *')
    call(C.sk_legged_gait, GAITS.index(name), int(leg_count), ph, duty)
    return [float(ph[i]) for i in range(int(leg_count))], float(duty[0])


def min_planted(phases, duty):
    """The fewest feet down at any phase of the cycle for these offsets and duty."""
    ph = ffi.new('float[]', [float(p) for p in phases] or [0.0])
    return int(C.sk_legged_min_planted(ph, len(phases), float(duty)))


class LeggedWalker:
    """The walker for a creature's skeleton (gait: 'wave' or 'alternate'), or for any skeleton
    with legs given as (hip, knee, foot, foot_radius) tuples of joint names or indices, body_joint
    a root joint, phases (one per leg, 0..1) and duty. terrain: a Terrain (None: flat at y = 0);
    options by name: step_length, step_height, min_frequency, max_frequency, max_tilt (0 = the
    library's default)."""

    def __init__(self, skeleton, gait='wave', legs=None, body_joint=None, phases=None, duty=None, terrain=None,
                 allocator=None, **options):
        self.skeleton = skeleton
        self.terrain = terrain if terrain is not None else Terrain.flat(0.0)
        d = ffi.new('sk_legged_desc *')
        if legs is None:  # a creature's legs (content/creature.h)
            cl = ffi.new('sk_creature_leg[8]')
            body = ffi.new('int32_t *')
            n = int(C.sk_creature_legs(skeleton._p, body, cl, 8))
            if n == 0:
                raise ValueError("the skeleton is not a creature's: give its legs")
            legs = [(cl[i].hip, cl[i].knee, cl[i].foot, cl[i].foot_radius) for i in range(n)]
            body_joint = int(body[0])
        legs = list(legs)
        if not 2 <= len(legs) <= 8:
            raise ValueError('2..8 legs, got %d' % len(legs))
        d.skeleton = skeleton._p
        d.leg_count = len(legs)
        for i, (hip, knee, foot, radius) in enumerate(legs):
            d.legs[i].hip, d.legs[i].knee, d.legs[i].foot = (skeleton.index(j) for j in (hip, knee, foot))
            d.legs[i].foot_radius = _finite('foot_radius', radius)
        d.body_joint = skeleton.index(0 if body_joint is None else body_joint)
        if phases is None or duty is None:
            phases, duty = globals()['gait'](gait, len(legs))
        if len(phases) != len(legs):
            raise ValueError('%d phases for %d legs' % (len(phases), len(legs)))
        for i, p in enumerate(phases):
            d.phase[i] = _finite('phase', p)
        d.duty = _finite('duty', duty)
        d.terrain = self.terrain.c[0]
        for k, v in options.items():
            if k not in _OPTIONS:
                raise TypeError('unknown legged walker option %r' % k)
            setattr(d, k, _finite(k, v))
        out = ffi.new('sk_legged **')
        call(C.sk_legged_create, d, c_of(allocator), out)
        self._p = owned(out[0], C.sk_legged_destroy, allocator)
        self.leg_count = int(d.leg_count)
        self.phases = [float(d.phase[i]) for i in range(self.leg_count)]
        self.duty = float(d.duty)
        self.feet_joints = [int(d.legs[i].foot) for i in range(self.leg_count)]
        self.pose = Pose(skeleton, weights=False)

    def reset(self, x=0.0, z=0.0, yaw=0.0):
        """Standing at (x, z) facing yaw, every foot at its rest place on the ground."""
        call(C.sk_legged_reset, self._p, _finite('x', x), _finite('z', z), _finite('yaw', yaw))

    def update(self, dt, x, z, yaw=0.0):
        """One frame (dt in (0, 1] s): the body's point moves to (x, z) facing yaw. Returns
        self.pose (the local pose in character space; world = state['root'] x model)."""
        call(C.sk_legged_update, self._p, _finite('dt', dt), _finite('x', x), _finite('z', z), _finite('yaw', yaw),
             self.pose.c)
        return self.pose

    @property
    def model(self):
        """World matrices (joints, 4, 4) of the last pose: a view of the walker's memory, valid until
        its next update or reset; None before the first update."""
        p = C.sk_legged_model(self._p)
        if p == ffi.NULL:
            return None
        return mat4_rows(view(self, ffi.cast('float *', p), (self.skeleton.joint_count, 16)))

    @property
    def state(self):
        """A dict: time, walking, phase, frequency, position, yaw, velocity, body_height,
        rest_height, clearance, pitch, roll, planted, min_planted, rays, root (4, 4), and feet (per
        leg: contact, normal, target, planted, swing, reached, event: None or a dict with kind
        'down' / 'up', position, normal, speed)."""
        s = C.sk_legged_get_state(self._p)
        feet = []
        for i in range(s.leg_count):
            f = s.feet[i]
            ev = None
            if f.event.kind:
                ev = {'kind': FOOT_EVENTS[f.event.kind], 'position': _v(f.event.position),
                      'normal': _v(f.event.normal), 'speed': float(f.event.speed)}
            feet.append({'contact': _v(f.contact), 'normal': _v(f.normal), 'target': _v(f.target),
                         'planted': bool(f.planted), 'swing': float(f.swing), 'reached': bool(f.reached),
                         'event': ev})
        root = np.frombuffer(ffi.buffer(ffi.addressof(s.root), 64), np.float32).reshape(4, 4).T.copy()
        return {'time': float(s.time), 'walking': bool(s.walking), 'phase': float(s.phase),
                'frequency': float(s.frequency), 'position': _v(s.position), 'yaw': float(s.yaw),
                'velocity': _v(s.velocity), 'body_height': float(s.body_height),
                'rest_height': float(s.rest_height), 'clearance': float(s.clearance), 'pitch': float(s.pitch),
                'roll': float(s.roll), 'planted': int(s.planted), 'min_planted': int(s.min_planted),
                'rays': int(s.rays), 'root': root, 'feet': feet}


def creature_kind(skeleton):
    """The creature a skeleton was built as ('tripod', 'quadruped', 'hexapod'), or None."""
    k = int(C.sk_creature_kind_of(skeleton._p))
    return CREATURES[k] if 0 <= k < len(CREATURES) else None
