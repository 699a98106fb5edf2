"""Motion analysis of walk and run cycles (legs, keytimes, stride, footbase trajectories)."""
import os

import numpy as np

from ._lib import C, call, cached_view, cstr, ffi, pystr, view
from .memory import c_of, owned

_LEG_FLOATS = ('stance_time', 'foot_length', 'leg_length', 'heel_ground', 'toe_ground', 'heel_contact',
               'toe_contact', 'heel_off', 'toe_off', 'linear_speed_end', 'foot_lift', 'foot_off', 'post_foot_lift',
               'heel_strike', 'toe_strike', 'linear_speed_begin', 'foot_land', 'foot_strike', 'pre_foot_land',
               'stance_fraction', 'stride_velocity', 'stride_distance')
_LEG_VECS = ('heel_point', 'toe_point', 'center', 'a', 'b', 'axis', 'foot_direction', 'stance_position',
             'stride_displacement', 'stride_direction')
_LEG_CURVES3 = ('heel', 'toe', 'middle', 'footbase', 'normalized_footbase')
_LEG_CURVES1 = ('heel_height', 'toe_height', 'balance')
_OPTION_FIELDS = ('sample_count', 'backward', 'contact_height', 'balance_alpha', 'min_roll', 'speed_tolerance',
                  'cycle_start', 'cycle_end', 'stride_planted', 'stride_source', 'still_band')


def _v(c):
    return np.array([c.x, c.y, c.z], np.float32)


class Leg:
    """A leg to analyse: hip, knee, ankle, toe (-1: none) joint indices; heel / toe_tip points
    (None: from the rest pose or the mesh)."""

    def __init__(self, hip, knee, ankle, toe=-1, name='', heel=None, toe_tip=None):
        self.name, self.hip, self.knee, self.ankle, self.toe = name, hip, knee, ankle, toe
        self.heel, self.toe_tip = heel, toe_tip

    def _fill(self, c):
        c.name = cstr(self.name)[:31]
        c.hip, c.knee, c.ankle, c.toe = self.hip, self.knee, self.ankle, self.toe
        if self.heel is not None:
            c.heel_set = True
            c.heel.x, c.heel.y, c.heel.z = self.heel
        if self.toe_tip is not None:
            c.toe_tip_set = True
            c.toe_tip.x, c.toe_tip.y, c.toe_tip.z = self.toe_tip

    @classmethod
    def _from(cls, c):
        return cls(int(c.hip), int(c.knee), int(c.ankle), int(c.toe), pystr(c.name),
                   tuple(_v(c.heel)) if c.heel_set else None, tuple(_v(c.toe_tip)) if c.toe_tip_set else None)

    def __repr__(self):
        return '<Leg %r hip %d knee %d ankle %d toe %d>' % (self.name, self.hip, self.knee, self.ankle, self.toe)


def find_legs(skeleton):
    """Legs found from common joint names (left first); [] when none."""
    out = ffi.new('sk_leg_desc[]', 16)
    n = C.sk_legs_find(skeleton._p, out, 16)
    return [Leg._from(out[i]) for i in range(n)]


def legs_from_humanoid(humanoid):
    """The two legs (left, right) of a HumanoidMap, or of a Skeleton's map (HumanoidMap.find: names,
    then shape, so characters whose joint names find_legs does not know, such as CesiumMan):
    upper leg, lower leg, foot and toes (-1: none) (sk_legs_from_humanoid); [] when the map lacks
    an upper leg, lower leg or foot."""
    from .mirror import HumanoidMap
    m = humanoid if isinstance(humanoid, HumanoidMap) else HumanoidMap.find(humanoid)
    out = ffi.new('sk_leg_desc[2]')
    n = C.sk_legs_from_humanoid(m._c, out, 2)
    return [Leg._from(out[i]) for i in range(n)]


def legs_from_mesh(asset, legs):
    """The legs with their heel / toe points from the skinned mesh's sole (where not set)."""
    c = _legs_c(legs)
    call(C.sk_leg_points_from_mesh, asset._p, c, len(legs), ffi.NULL, ffi.NULL)
    return [Leg._from(c[i]) for i in range(len(legs))]


def _legs_c(legs):
    c = ffi.new('sk_leg_desc[]', max(len(legs), 1))
    for i, leg in enumerate(legs):
        leg._fill(c[i])
    return c


class LegAnalysis:
    def __init__(self, c, owner):
        self.name = pystr(c.name)
        self.hip_joint, self.knee_joint = int(c.hip_joint), int(c.knee_joint)
        self.ankle_joint, self.toe_joint = int(c.ankle_joint), int(c.toe_joint)
        for k in _LEG_FLOATS:
            setattr(self, k, float(getattr(c, k)))
        for k in _LEG_VECS:
            setattr(self, k, _v(getattr(c, k)))
        self.stance_sample = int(c.stance_sample)
        self.stride_source = ('auto', 'contact', 'footprints')[c.stride_source]
        self._c, self._owner = c, owner

    def __getattr__(self, k):
        """The per-sample curves: views of the analysis' memory, made on access (_lib.cached_view)."""
        n = self._owner.sample_count
        if k in _LEG_CURVES3:
            return cached_view(self, k, lambda: view(self._owner, ffi.cast('float *', getattr(self._c, k)), (n, 3)))
        if k in _LEG_CURVES1:
            return cached_view(self, k, lambda: view(self._owner, getattr(self._c, k), (n,)))
        raise AttributeError(k)


class MotionAnalysis:
    """The analysis of one cycle: cycle_duration (s), cycle_speed (m/s), cycle_velocity,
    cycle_distance, cycle_direction, root_velocity, sample_count, legs (LegAnalysis)."""

    def __init__(self, p, allocator=None):
        self._p = owned(p, C.sk_motion_analysis_destroy, allocator)
        self.clip_name = pystr(p.clip_name)
        self.backward = bool(p.backward)
        self.sample_count = int(p.sample_count)
        self.cycle_duration = float(p.cycle_duration)
        self.cycle_start = float(p.cycle_start)
        self.cycle_velocity = float(p.cycle_velocity)
        self.cycle_speed = float(p.cycle_speed)
        self.cycle_distance = float(p.cycle_distance)
        self.cycle_direction = _v(p.cycle_direction)
        self.root_velocity = _v(p.root_velocity)
        self.legs = [LegAnalysis(p.legs[i], self) for i in range(p.leg_count)]

    def widen_planted(self, source, max_share=0.0):
        """Widens each leg's planted phase (foot-land .. foot-lift) to take in the same leg's in
        source, an analysis of the same motion on another skeleton (a retargeted clip's source
        on its own skeleton), where the two overlap (sk_motion_analysis_widen_planted). Returns
        how many legs were widened; the legs' keytimes are read again."""
        n = ffi.new('uint32_t *')
        call(C.sk_motion_analysis_widen_planted, self._p, source._p, float(max_share), n)
        self.legs = [LegAnalysis(self._p.legs[i], self) for i in range(self._p.leg_count)]
        return int(n[0])

    def to_json(self):
        text, n = ffi.new('char **'), ffi.new('size_t *')
        call(C.sk_motion_analysis_to_json, self._p, ffi.NULL, text, n)
        try:
            return bytes(ffi.buffer(text[0], n[0])).decode()
        finally:
            C.sk_free(ffi.NULL, text[0], n[0] + 1)

    @classmethod
    def from_json(cls, text, allocator=None):
        b = text.encode() if isinstance(text, str) else bytes(text)
        out = ffi.new('sk_motion_analysis **')
        call(C.sk_motion_analysis_from_json, b, len(b), c_of(allocator), out)
        return cls(out[0], allocator)

    def save(self, path):
        call(C.sk_motion_analysis_save, self._p, cstr(os.fspath(path)), ffi.NULL, ffi.NULL)


def analyze(skeleton, clip, legs=None, allocator=None, **options):
    """Analyses a walk or run cycle. legs: None (found from joint names) or a list of Leg. Options
    by name: sample_count, backward, contact_height, cycle_start, cycle_end, stride_planted, ..."""
    if legs is None:
        legs = find_legs(skeleton)
        if not legs:
            raise ValueError('analyze: no legs found from the joint names; pass legs=')
    o = ffi.new('sk_motion_analysis_options *')
    for k, v in options.items():
        if k not in _OPTION_FIELDS:
            raise TypeError('unknown analysis option %r' % k)
        setattr(o, k, v)
    out = ffi.new('sk_motion_analysis **')
    call(C.sk_motion_analyze, skeleton._p, clip._p, _legs_c(legs), len(legs), o, c_of(allocator), out)
    return MotionAnalysis(out[0], allocator)


def find_cycle(skeleton, clip, legs=None, min_duration=0.0):
    """(start, end) in seconds of the best cycle of a clip that is not a loop."""
    legs = find_legs(skeleton) if legs is None else legs
    s, e = ffi.new('double *'), ffi.new('double *')
    call(C.sk_motion_find_cycle, skeleton._p, clip._p, _legs_c(legs), len(legs), float(min_duration), ffi.NULL, s, e)
    return float(s[0]), float(e[0])


def cycle_facing(skeleton, clip, legs=None, start=0.0, end=0.0):
    """(facing, travel, spread) over start..end of the clip (end <= start: the whole clip): the yaw
    in radians the body faces (0: +Z, positive towards +X; from the line between the first two legs'
    hips, signed by the way the feet point), the yaw of the hips' displacement, and 1 minus the
    length of the mean facing direction (0: one way throughout). To turn a cycle onto the body's
    nearest axis, turn_clip it by k x 90 degrees - t, t the yaw of the analysis' cycle_direction and
    k the nearest integer to (t - facing) / 90 degrees (as locomote --from does)."""
    legs = find_legs(skeleton) if legs is None else legs
    y, t, sp = ffi.new('float *'), ffi.new('float *'), ffi.new('float *')
    call(C.sk_motion_cycle_facing, skeleton._p, clip._p, _legs_c(legs), len(legs), float(start), float(end),
         ffi.NULL, y, t, sp)
    return float(y[0]), float(t[0]), float(sp[0])


def heels_to_ground(skeleton, clip, analysis, legs, keep=(), allocator=None):
    """Heel points brought to the toes' ground (sk_leg_heels_to_ground): for each leg whose heel
    comes down lower or higher than its toe in analysis (of clip on skeleton with these legs) by
    5 mm or more, the heel point the analysis used moved by the difference; keep: indices of legs
    left as they are (points set by hand). Returns (new legs, how many moved); analyse again."""
    c = _legs_c(legs)
    src = ffi.new('sk_leg_points_source[]', max(1, len(legs)))
    for i in range(len(legs)):
        src[i] = 0 if i in keep else 1  # SK_LEG_POINTS_MANUAL / _MESH
    n = ffi.new('uint32_t *')
    call(C.sk_leg_heels_to_ground, skeleton._p, clip._p, analysis._p, c, len(legs), src, c_of(allocator), n)
    return [Leg._from(c[i]) for i in range(len(legs))], int(n[0])


def foot_level(skeleton, clip, legs=None, max_angle=0.0, min_angle=0.0, middle=0.0, flat_pitch=None, contacts=None,
               per_contact=False):
    """The clip with each leg's planted foot turned flat on the ground (a retargeted clip keeps the
    source's foot angle): (new Clip, stats) where stats is a list per leg of dicts with pitch, tilt,
    spread (radians), samples, contacts and applied. Options as sk_foot_level_options (0: defaults).
    contacts: the planted intervals to measure over, (leg, start s, end s) each (for a retargeted clip,
    the source's: find_contacts on its own skeleton); None: found on the clip. per_contact: each
    contact levelled by its own tilt, interpolated between contacts (sk_foot_level_options.per_contact)."""
    from .core import Clip
    legs = find_legs(skeleton) if legs is None else legs
    o = ffi.new('sk_foot_level_options *')
    o.max_angle, o.min_angle, o.middle = max_angle, min_angle, middle
    o.per_contact = bool(per_contact)
    if contacts is not None:
        cs = ffi.new('sk_contact[]', max(1, len(contacts)))
        for i, c in enumerate(contacts):
            leg, start, end = (c['leg'], c['start'], c['end']) if isinstance(c, dict) else c[:3]
            cs[i].leg, cs[i].start, cs[i].end = int(leg), float(start), float(end)
        o.contacts, o.contact_count = cs, len(contacts)
    if flat_pitch is not None:
        fp = ffi.new('float[]', [float(x) for x in flat_pitch])
        if len(flat_pitch) != len(legs):
            raise ValueError('foot_level: flat_pitch has %d values for %d legs' % (len(flat_pitch), len(legs)))
        o.flat_pitch = fp
    out = ffi.new('sk_clip **')
    st = ffi.new('sk_foot_level_stats *')
    call(C.sk_foot_level, skeleton._p, clip._p, _legs_c(legs), len(legs), o, ffi.NULL, out, st)
    stats = [dict(pitch=float(st.pitch[i]), tilt=float(st.tilt[i]), spread=float(st.spread[i]),
                  samples=int(st.samples[i]), contacts=int(st.contacts[i]), applied=bool(st.applied[i]))
             for i in range(len(legs))]
    return Clip(out[0]), stats
