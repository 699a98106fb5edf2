"""Foot (and hand) contacts of a clip, and contact restoration: another clip's feet kept planted
over the same phases with two-bone IK (locomotion/contacts.h). Positions in the clip's model
space, +Y up; times in seconds of the clip."""
import collections
import math

from ._lib import C, LimitExceeded, call, ffi
from .analysis import _legs_c, find_legs
from .core import Clip
from .memory import c_of

Contact = collections.namedtuple('Contact', 'leg start end position')


def _opt(name, v):
    v = float(v)
    if not math.isfinite(v):
        raise ValueError('%s must be finite, got %r' % (name, v))
    return v


def find_contacts(skeleton, clip, legs=None, sample_rate=0.0, height=0.0, speed=0.0, min_duration=0.0,
                  allocator=None):
    """The contacts of clip (played once from 0 to its duration) for legs (None: find_legs; only hip,
    knee and ankle are used): a list of Contact(leg, start, end, position), by leg then time.
    Options as sk_contact_find_options (0: defaults: 120 Hz, a band of 8% of the leg length,
    0.6 leg lengths per second, 0.05 s)."""
    legs = find_legs(skeleton) if legs is None else list(legs)
    o = ffi.new('sk_contact_find_options *')
    o.sample_rate, o.height = _opt('sample_rate', sample_rate), _opt('height', height)
    o.speed, o.min_duration = _opt('speed', speed), _opt('min_duration', min_duration)
    lc, n = _legs_c(legs), ffi.new('uint32_t *')
    cap = 64
    while True:
        out = ffi.new('sk_contact[]', cap)
        try:
            call(C.sk_contacts_find, skeleton._p, clip._p, lc, len(legs), o, c_of(allocator), out, cap, n)
            break
        except LimitExceeded:
            if n[0] <= cap:
                raise
            cap = int(n[0])
    return [Contact(int(c.leg), float(c.start), float(c.end), (c.position.x, c.position.y, c.position.z))
            for c in out[0:n[0]]]


def restore_contacts(skeleton, clip, contacts, legs=None, blend_time=0.0, ground=None, sample_rate=0.0,
                     hand_mask=0, floor=False, source=None, allocator=None):
    """clip with each leg pinned over its contacts (Contacts, e.g. found on the source of a
    retargeted clip; position is not used: the pin is this clip's own mean ankle position).
    floor: no foot below the ground in any key (sk_contact_restore_options.floor).
    source: (skeleton, clip, legs, scale), the clip the contacts came from, its legs in the same
    order as legs and the target's lengths per the source's (the leg-length ratio): outside the
    contacts the swing clears the ground by the source's clearance, scaled
    (sk_contact_restore_options.source).
    Returns (Clip, stats): stats a dict of contacts, keys, max_error (m), unreachable, raised
    (leg-keys whose foot the floor raised), max_raise (m), swing_max_up and swing_max_down (m: the
    most a swing's ankle was moved from the clip's height for the source's clearance)."""
    legs = find_legs(skeleton) if legs is None else list(legs)
    arr = ffi.new('sk_contact[]', max(len(contacts), 1))
    for i, c in enumerate(contacts):
        arr[i].leg, arr[i].start, arr[i].end = int(c[0]), _opt('contact start', c[1]), _opt('contact end', c[2])
    o = ffi.new('sk_contact_restore_options *')
    o.blend_time, o.sample_rate, o.hand_mask = _opt('blend_time', blend_time), _opt('sample_rate', sample_rate), \
        int(hand_mask)
    o.floor = bool(floor)
    if ground is not None:
        o.ground, o.ground_set = _opt('ground', ground), True
    keep = None
    if source is not None:
        s_skel, s_clip, s_legs, scale = source
        s_legs = list(s_legs)
        if len(s_legs) != len(legs):
            raise ValueError('source has %d legs, the target %d' % (len(s_legs), len(legs)))
        keep = (ffi.new('sk_contact_source *'), _legs_c(s_legs))
        keep[0].skeleton, keep[0].clip, keep[0].legs = s_skel._p, s_clip._p, keep[1]
        keep[0].scale = _opt('scale', scale)
        o.source = keep[0]
    out, st = ffi.new('sk_clip **'), ffi.new('sk_contact_restore_stats *')
    call(C.sk_contacts_restore, skeleton._p, clip._p, _legs_c(legs), len(legs), arr, len(contacts), o,
         c_of(allocator), out, st)
    return Clip(out[0], allocator=allocator), {'contacts': int(st.contacts), 'keys': int(st.keys), 'max_error': float(st.max_error),
                          'unreachable': int(st.unreachable), 'raised': int(st.raised),
                          'max_raise': float(st.max_raise), 'swing_max_up': float(st.swing_max_up),
                          'swing_max_down': float(st.swing_max_down)}
