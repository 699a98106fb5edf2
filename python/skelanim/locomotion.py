"""Locomotion: motion groups of analysed cycles and the locomotor that steps over a terrain."""
import numpy as np

from ._lib import C, call, ffi, mat4_rows, view
from .memory import c_of, owned
from .core import Pose
from .world import Terrain

MODES = ('standing', 'moving', 'stopping')


def _v(c):
    return np.array([c.x, c.y, c.z], np.float32)


class MotionGroup:
    """Analysed cyclic motions (walk, run, ...) blended by velocity."""

    def __init__(self, analyses):
        self.analyses = list(analyses)
        arr = ffi.new('sk_motion_analysis *[]', [a._p for a in self.analyses])
        out = ffi.new('sk_motion_group **')
        call(C.sk_motion_group_create, arr, len(self.analyses), ffi.NULL, out)
        self._p = ffi.gc(out[0], C.sk_motion_group_destroy)

    def __len__(self):
        return int(C.sk_motion_group_count(self._p))

    def offset(self, i):
        return float(C.sk_motion_group_offset(self._p, i))

    def velocity(self, i):
        return _v(C.sk_motion_group_velocity(self._p, i))

    def weights(self, velocity):
        """Per-motion weights for a velocity (x, y, z) in m/s."""
        n = len(self)
        w = np.zeros(n, np.float32)
        v = ffi.new('sk_vec3 *')
        v.x, v.y, v.z = (float(x) for x in velocity)
        b = ffi.new('sk_motion_blend *')
        call(C.sk_motion_group_evaluate, self._p, v[0], ffi.cast('float *', ffi.from_buffer(w)), n, b)
        return w


class Locomotor:
    """The semi-procedural locomotion runtime: feed it a path point per frame (x, z, yaw), it poses
    the character with its feet planted on the terrain. clips[i] is the clip analyses[i] was made
    from. Options: those of sk_locomotor_desc by name (max_step_up, max_step_down, soft, idle_speed,
    ground_smoothing, plain, no_hip_adjust, body_joint)."""

    _OPTIONS = ('max_step_up', 'max_step_down', 'soft', 'idle_speed', 'ground_smoothing', 'plain', 'no_hip_adjust',
                'body_joint')

    def __init__(self, skeleton, analyses, clips, idle=None, terrain=None, allocator=None, **options):
        self.skeleton = skeleton
        self.group = analyses if isinstance(analyses, MotionGroup) else MotionGroup(analyses)
        self.clips, self.idle = list(clips), idle
        self.terrain = terrain if terrain is not None else Terrain.flat(0.0)
        d = ffi.new('sk_locomotor_desc *')
        d.skeleton = skeleton._p
        d.group = self.group._p
        self._clip_arr = ffi.new('sk_clip *[]', [c._p for c in self.clips])
        d.clips = self._clip_arr
        d.clip_count = len(self.clips)
        d.idle = idle._p if idle is not None else ffi.NULL
        d.terrain = self.terrain.c[0]
        d.body_joint = -1
        for k, v in options.items():
            if k not in self._OPTIONS:
                raise TypeError('unknown locomotor option %r' % k)
            setattr(d, k, v)
        out = ffi.new('sk_locomotor **')
        call(C.sk_locomotor_create, d, c_of(allocator), out)
        self._p = owned(out[0], C.sk_locomotor_destroy, allocator)
        self.pose = Pose(skeleton, weights=False)

    def reset(self, x=0.0, z=0.0, yaw=0.0):
        call(C.sk_locomotor_reset, self._p, float(x), float(z), float(yaw))

    def update(self, dt, x, z, yaw=0.0):
        """One frame: the character's path point moves to (x, z) facing yaw. Returns self.pose
        (written in place)."""
        call(C.sk_locomotor_update, self._p, float(dt), float(x), float(z), float(yaw), self.pose.c)
        return self.pose

    @property
    def model(self):
        """World matrices (joints, 4, 4) of the last pose: a view of the locomotor's own (valid until
        the next update)."""
        p = C.sk_locomotor_model(self._p)
        return mat4_rows(view(self, ffi.cast('float *', p), (self.skeleton.joint_count, 16)))

    @property
    def weights(self):
        return view(self, C.sk_locomotor_weights(self._p), (len(self.clips),)).copy()

    @property
    def state(self):
        """A dict of the locomotor's state: time, position, yaw, velocity, phase, mode, moving,
        hip_offset, root (4, 4), rays, feet (list of dicts: heel, toe, ankle, stance, grounded,
        cycle_time, flight, reached, foot: heel to toe of the foot laid flat, character space)."""
        s = C.sk_locomotor_get_state(self._p)
        feet = []
        for i in range(s.leg_count):
            f = s.feet[i]
            feet.append({'heel': _v(f.heel), 'toe': _v(f.toe), 'ankle': _v(f.ankle), 'stance': bool(f.stance),
                         'grounded': bool(f.grounded), 'cycle_time': float(f.cycle_time),
                         'flight': float(f.flight), 'reached': bool(f.reached), 'foot': _v(f.foot)})
        root = np.frombuffer(ffi.buffer(ffi.addressof(s.root), 64), np.float32).copy()
        return {'time': float(s.time), 'position': _v(s.position), 'yaw': float(s.yaw), 'velocity': _v(s.velocity),
                'phase': float(s.phase), 'cycle_duration': float(s.cycle_duration), 'mode': MODES[s.mode],
                'moving': float(s.moving), 'hip_offset': float(s.hip_offset), 'root': root.reshape(4, 4).T.copy(),
                'rays': int(s.rays), 'feet': feet}
