"""Playback state per instance (players with event markers), crossfades and phase-synchronised
playback (anim/player.h, anim/fader.h). Plain C structs held by the Python objects; nothing here
allocates in the library. Times are seconds."""
import collections
import math

from ._lib import C, call, cstr, ffi, pystr
from .core import _loop

CURVES = {'linear': 0, 'smoothstep': 1}
Event = collections.namedtuple('Event', 'name marker clip_time cycle step_fraction direction')


def _finite(name, v):
    v = float(v)
    if not math.isfinite(v):
        raise ValueError('%s must be finite, got %r' % (name, v))
    return v


class Player:
    """The playback state of one instance: a time that runs at its own speed (negative: backwards),
    loops per loop ('repeat', 'clamp', 'ping_pong'), pauses, seeks. clip: a Clip or a duration in
    seconds. markers: [(name, clip time)], sorted, within [0, duration]; advance reports each one
    crossed (the event rule of anim/player.h)."""

    def __init__(self, clip, loop='repeat', speed=1.0, start_time=0.0, paused=False, markers=()):
        duration = clip if isinstance(clip, (int, float)) else clip.duration
        d = ffi.new('sk_player_desc *')
        d.duration = _finite('duration', duration)
        d.loop = _loop(loop)
        d.speed = _finite('speed', speed)
        d.start_time = _finite('start_time', start_time)
        d.paused = bool(paused)
        self._c = ffi.new('sk_player *')
        C.sk_player_init(self._c, d)
        self.set_markers(markers)

    def set_markers(self, markers):
        """[(name, clip time)]: sorted by time, finite, within [0, duration] (InvalidArgument else)."""
        markers = list(markers)
        self._names = [ffi.new('char[]', cstr(n)) for n, _ in markers]
        self._markers = ffi.new('sk_marker[]', max(len(markers), 1))
        for i, (n, t) in enumerate(markers):
            self._markers[i].name = self._names[i]
            self._markers[i].time = float(t)
        self._marker_count = len(markers)
        call(C.sk_markers_validate, self._markers, self._marker_count, self._c.duration)

    @property
    def c(self):
        return self._c

    duration = property(lambda self: float(self._c.duration))
    period = property(lambda self: float(self._c.period))
    cycle = property(lambda self: int(self._c.cycle))
    clip_time = property(lambda self: float(C.sk_player_clip_time(self._c)), doc='the clip time to sample, in [0, d]')
    phase = property(lambda self: float(C.sk_player_phase(self._c)), doc='position / period, in [0, 1)')
    unrolled = property(lambda self: float(C.sk_player_unrolled(self._c)), doc='cycle * period + position')
    finished = property(lambda self: bool(C.sk_player_finished(self._c)), doc='a CLAMP player rests at its end')

    @property
    def speed(self):
        return float(self._c.speed)

    @speed.setter
    def speed(self, v):
        C.sk_player_set_speed(self._c, _finite('speed', v))

    @property
    def paused(self):
        return bool(self._c.paused)

    @paused.setter
    def paused(self, v):
        C.sk_player_set_paused(self._c, bool(v))

    def seek(self, clip_time):
        """Jumps to a clip time (wrapped per the loop mode); keeps the cycle; reports nothing."""
        C.sk_player_seek(self._c, _finite('clip_time', clip_time))

    def seek_phase(self, phase):
        C.sk_player_seek_phase(self._c, _finite('phase', phase))

    def _run(self, fn, dt, max_events):
        events = []

        def on_event(user, ev):
            events.append(Event(pystr(ev.name), int(ev.marker), float(ev.clip_time), int(ev.cycle),
                                float(ev.step_fraction), int(ev.direction)))
            return max_events is None or len(events) < max_events

        cb = ffi.callback('bool (void *, const sk_event *)', on_event) if self._marker_count else ffi.NULL
        fn(self._c, _finite('dt', dt), self._markers, self._marker_count, cb, ffi.NULL)
        return events

    def advance(self, dt, max_events=None):
        """Advances by dt seconds of global time (times speed; nothing while paused); returns the
        markers crossed as Events (name, marker, clip_time, cycle, step_fraction, direction), at
        most max_events (the time still advances fully)."""
        return self._run(C.sk_player_advance, dt, max_events)

    def step(self, local_dt, max_events=None):
        """Moves by a step of clip time (already scaled; pause ignored); returns the Events."""
        return self._run(C.sk_player_step, local_dt, max_events)

    def copy(self):
        p = Player.__new__(Player)
        p._c = ffi.new('sk_player *', self._c[0])
        p._names, p._markers, p._marker_count = self._names, self._markers, self._marker_count
        return p

    def sample(self, clip, skeleton, out=None):
        """clip sampled at this player's clip time."""
        return clip.sample(skeleton, self.clip_time, loop='clamp', out=out)

    def __repr__(self):
        return '<Player %.3f s of %.3f s, cycle %d, speed %g%s>' % (
            self.clip_time, self.duration, self.cycle, self.speed, ', paused' if self.paused else '')


def advance_synced(players, weights, dt):
    """Advances looping players in step: the group's cycle is the weight-averaged duration, every
    player moves by the common phase step times its own period. Returns the phase step."""
    n = len(players)
    if len(weights) != n:
        raise ValueError('advance_synced: %d players, %d weights' % (n, len(weights)))
    arr = ffi.new('sk_player *[]', [p._c for p in players] or 1)
    w = ffi.new('float[]', [_finite('weight', x) for x in weights] or [0.0])
    return float(C.sk_players_advance_synced(arr, w, n, _finite('dt', dt)))


def fade_eval(curve, x):
    """The fade curve at x in [0, 1] (clamped): 'linear' x, 'smoothstep' 3x^2 - 2x^3."""
    return float(C.sk_fade_eval(CURVES[curve], _finite('x', x)))


class Fader:
    """Crossfade weights of up to 8 sources (ids of the caller's choice), summing to 1. start(id)
    fades id in while the others fade out from the weights they have then (no pop when a fade is
    interrupted)."""

    MAX = 8

    def __init__(self, id):
        self._c = ffi.new('sk_fader *')
        C.sk_fader_init(self._c, int(id))

    def start(self, id, duration, curve='linear'):
        C.sk_fader_start(self._c, int(id), _finite('duration', duration), CURVES[curve])

    def update(self, dt):
        C.sk_fader_update(self._c, _finite('dt', dt))

    @property
    def in_transition(self):
        return bool(C.sk_fader_in_transition(self._c))

    def weight(self, id):
        return float(C.sk_fader_weight(self._c, int(id)))

    @property
    def weights(self):
        """{id: weight} of the active sources."""
        return {int(self._c.id[i]): float(self._c.weight[i]) for i in range(self._c.count)}
