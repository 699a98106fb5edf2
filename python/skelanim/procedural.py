"""The IK-only procedural walker (locomotion/procedural.h): a character with no clips that walks,
runs, climbs stairs and ramps, falls off ledges and jumps over a terrain, its legs and arms posed
by inverse kinematics from the rest pose. World space: metres, +Y up, yaw about +Y (0 faces +Z)."""
import math

import numpy as np

from ._lib import C, call, ffi, mat4_rows, view
from .analysis import _legs_c, find_legs
from .core import Pose
from .ik import _finite, _vec3
from .memory import c_of, owned
from .world import Terrain

MODES = ('standing', 'walking', 'crouching', 'airborne', 'landing', 'fallen', 'hanging')
FOOT_EVENTS = (None, 'down', 'up')
_GAIT = ('walk_speed', 'run_speed', 'step_length', 'step_height', 'hip_rise', 'crouch_depth', 'jump_speed',
         'max_step_down', 'max_step_up')


def _v(c):
    return np.array([c.x, c.y, c.z], np.float32)


def _footstep(s):
    return {'position': _v(s.position), 'normal': _v(s.normal), 'yaw': float(s.yaw), 'time': float(s.time),
            'rotation': np.array([s.rotation.x, s.rotation.y, s.rotation.z, s.rotation.w], np.float32)}


class ProceduralWalker:
    """legs: two Legs (left first; None: find_legs); arms: 0..2 (shoulder, elbow, hand) joints,
    names or indices (left first); terrain: a Terrain (None: flat at y = 0); limits: None or a list
    with one ik.Limit (or None) per skeleton joint; gait options by name (walk_speed, run_speed,
    step_length, step_height, hip_rise, crouch_depth, jump_speed, max_step_down, max_step_up;
    0 = the library's default)."""

    def __init__(self, skeleton, legs=None, arms=(), terrain=None, limits=None, body_joint=-1, allocator=None,
                 **gait):
        self.skeleton = skeleton
        legs = find_legs(skeleton) if legs is None else list(legs)
        if len(legs) != 2:
            raise ValueError('the procedural walker needs two legs, got %d' % len(legs))
        arms = list(arms)
        if len(arms) > 2:
            raise ValueError('at most two arms, got %d' % len(arms))
        self.terrain = terrain if terrain is not None else Terrain.flat(0.0)
        d = ffi.new('sk_procedural_desc *')
        d.skeleton = skeleton._p
        lc = _legs_c(legs)
        d.legs[0], d.legs[1] = lc[0], lc[1]
        for i, arm in enumerate(arms):
            d.arms[i].shoulder, d.arms[i].elbow, d.arms[i].hand = (skeleton.index(j) for j in arm)
        d.arm_count = len(arms)
        d.body_joint = skeleton.index(body_joint)
        d.terrain = self.terrain.c[0]
        for k, v in gait.items():
            if k not in _GAIT:
                raise TypeError('unknown procedural walker option %r' % k)
            setattr(d, k, _finite(k, v))
        self._limits = ffi.NULL
        if limits is not None:
            if len(limits) != skeleton.joint_count:
                raise ValueError('limits: %d entries for %d joints' % (len(limits), skeleton.joint_count))
            self._limits = ffi.new('sk_ik_limit[]', skeleton.joint_count)
            for j, lim in enumerate(limits):
                if lim is not None:
                    lim._fill(self._limits[j])
        d.limits = self._limits  # the walker keeps reading them
        out = ffi.new('sk_procedural **')
        call(C.sk_procedural_create, d, c_of(allocator), out)
        self._p = owned(out[0], C.sk_procedural_destroy, allocator)
        self.arm_count = len(arms)
        self.pose = Pose(skeleton, weights=False)

    def reset(self, x=0.0, z=0.0, yaw=0.0):
        """Standing at (x, z) facing yaw, the feet side by side on the ground."""
        call(C.sk_procedural_reset, self._p, _finite('x', x), _finite('z', z), _finite('yaw', yaw))

    def update(self, dt, x, z, yaw=0.0):
        """One frame (dt in (0, 1] s): the character's ground point moves to (x, z) facing yaw.
        Returns self.pose (the local pose, in character space; world = state['root'] x model)."""
        call(C.sk_procedural_update, self._p, _finite('dt', dt), _finite('x', x), _finite('z', z),
             _finite('yaw', yaw), self.pose.c)
        return self.pose

    def jump(self):
        """Starts a jump (crouch, take-off) if standing or walking; False otherwise."""
        return bool(C.sk_procedural_jump(self._p))

    def look_at(self, target, weight=1.0):
        """From the next update the head looks at the world point target (spine and neck share the
        turn, at most 1.2 rad), blended over the walk by weight (0..1); target None stops."""
        if target is None:
            C.sk_procedural_look_at(self._p, ffi.NULL, 0.0)
            return
        w = _finite('weight', weight)
        t = ffi.new('sk_vec3 *')
        _vec3(t, _finite('target', target))
        if not 0.0 <= w <= 1.0 or not C.sk_procedural_look_at(self._p, t, w):
            raise ValueError('look_at refused target %r, weight %r' % (target, weight))

    def push(self, dv):
        """Changes the body's velocity by dv (m/s, world; vertical part ignored): recovery steps, or
        a fall when no step can catch it (state['mode'] 'fallen')."""
        v = ffi.new('sk_vec3 *')
        _vec3(v, _finite('dv', dv))
        if not C.sk_procedural_push(self._p, v[0]):
            raise ValueError('push refused dv %r' % (dv,))

    def crouch(self, height):
        """From the next update walk crouched, the head (the highest joint) under height metres above
        the ground; 0 stands up again. state['crouch'] says how far the body is lowered."""
        h = _finite('height', height)
        if h < 0 or not C.sk_procedural_crouch(self._p, h):
            raise ValueError('crouch: height must be finite and not negative, got %r' % height)

    def point_at(self, arm, target, weight=1.0):
        """From the next update arm (0 .. arm_count - 1) points at the world point target, blended
        over the swing by weight (0..1); target None stops pointing."""
        if not 0 <= int(arm) < self.arm_count:
            raise ValueError('arm %d of %d' % (arm, self.arm_count))
        if target is None:
            ok = C.sk_procedural_point_at(self._p, int(arm), ffi.NULL, 0.0)
        else:
            w = _finite('weight', weight)
            if not 0.0 <= w <= 1.0:
                raise ValueError('weight must be in [0, 1], got %r' % w)
            t = ffi.new('sk_vec3 *')
            _vec3(t, _finite('target', target))
            ok = C.sk_procedural_point_at(self._p, int(arm), t, w)
        if not ok:
            raise ValueError('point_at refused arm %d, target %r, weight %r' % (arm, target, weight))

    @property
    def model(self):
        """World matrices (joints, 4, 4) of the last pose: a view of the walker's own memory, valid
        until its next update or reset; None before the first update."""
        p = C.sk_procedural_model(self._p)
        if p == ffi.NULL:
            return None
        return mat4_rows(view(self, ffi.cast('float *', p), (self.skeleton.joint_count, 16)))

    @property
    def state(self):
        """A dict of the walker's state after the last update: time, mode, position, yaw, velocity,
        speed, backward, run, step_length, step, support, body_height, slope, crouch, lean_pitch,
        lean_roll, balance, root (4, 4), rays, and
        feet (per leg: heel, toe, ankle, stance, step (a footstep dict), reached, event (None, or
        a dict: kind 'down' / 'up', position, normal, speed))."""
        s = C.sk_procedural_get_state(self._p)
        feet = []
        for i in range(2):
            f = s.feet[i]
            ev = None
            if f.event.kind:
                ev = {'kind': FOOT_EVENTS[f.event.kind], 'position': _v(f.event.position),
                      'normal': _v(f.event.normal), 'speed': float(f.event.speed)}
            feet.append({'heel': _v(f.heel), 'toe': _v(f.toe), 'ankle': _v(f.ankle), 'stance': bool(f.stance),
                         'step': _footstep(f.step), 'reached': bool(f.reached), 'event': ev})
        root = np.frombuffer(ffi.buffer(ffi.addressof(s.root), 64), np.float32).reshape(4, 4).T.copy()
        return {'time': float(s.time), 'mode': MODES[s.mode], 'position': _v(s.position), 'yaw': float(s.yaw),
                'velocity': _v(s.velocity), 'speed': float(s.speed), 'backward': bool(s.backward),
                'run': float(s.run), 'step_length': float(s.step_length), 'step': float(s.step),
                'support': int(s.support), 'body_height': float(s.body_height), 'slope': float(s.slope),
                'crouch': float(s.crouch), 'lean_pitch': float(s.lean_pitch), 'lean_roll': float(s.lean_roll),
                'balance': float(s.balance), 'push_offset': _v(s.push_offset),
                'root': root, 'rays': int(s.rays), 'feet': feet}


def walk_path(walker, points, dt=1.0 / 60.0):
    """Runs the walker along points [(x, z, yaw)], one update per point; yields (pose copy, state)."""
    for x, z, yaw in points:
        walker.update(dt, x, z, yaw)
        yield walker.pose.copy(), walker.state


def straight_path(speed, seconds, dt=1.0 / 60.0, start=(0.0, 0.0), yaw=0.0):
    """Points of a straight walk at speed (m/s) facing yaw, one per frame of dt."""
    n = int(round(seconds / dt))
    dx, dz = math.sin(yaw) * speed * dt, math.cos(yaw) * speed * dt
    return [(start[0] + dx * (i + 1), start[1] + dz * (i + 1), yaw) for i in range(n)]
