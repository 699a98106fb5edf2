"""State machines: a graph loaded from JSON and its instances."""
import json as _json
import os

from ._lib import C, call, cstr, ffi, pystr
from .core import Pose

PARAM_TYPES = ('float', 'bool', 'trigger')


class Graph:
    """A state machine over clips (read-only; shared by its instances)."""

    def __init__(self, p, skeleton, clips):
        self._p = ffi.gc(p, C.sk_graph_destroy)
        self.skeleton, self._clips = skeleton, clips

    @staticmethod
    def _clip_array(clips):
        return ffi.new('sk_clip *[]', [c._p for c in clips] or 1)

    @classmethod
    def from_json(cls, text, skeleton, clips):
        """text: the JSON (str, bytes, or a dict that is dumped); clips are named by the JSON."""
        if isinstance(text, dict):
            text = _json.dumps(text)
        b = text.encode() if isinstance(text, str) else bytes(text)
        out = ffi.new('sk_graph **')
        call(C.sk_graph_load_json, b, len(b), skeleton._p, cls._clip_array(clips), len(clips), ffi.NULL, out)
        return cls(out[0], skeleton, list(clips))

    @classmethod
    def load(cls, path, skeleton, clips):
        out = ffi.new('sk_graph **')
        call(C.sk_graph_load_file, cstr(os.fspath(path)), skeleton._p, cls._clip_array(clips), len(clips), ffi.NULL,
             ffi.NULL, out)
        return cls(out[0], skeleton, list(clips))

    @property
    def params(self):
        """{name: type} of the parameters."""
        return {pystr(C.sk_graph_param_name(self._p, i)): PARAM_TYPES[C.sk_graph_param_type(self._p, i)]
                for i in range(C.sk_graph_param_count(self._p))}

    def instance(self):
        return GraphInstance(self)


class GraphInstance:
    def __init__(self, graph):
        out = ffi.new('sk_graph_instance **')
        call(C.sk_graph_instance_create, graph._p, ffi.NULL, out)
        self.graph = graph
        self._p = ffi.gc(out[0], C.sk_graph_instance_destroy)

    def set(self, name, value):
        """Sets a float or bool parameter by name."""
        i = C.sk_graph_find_param(self.graph._p, cstr(name))
        if i < 0:
            raise KeyError('no parameter %r' % name)
        if C.sk_graph_param_type(self.graph._p, i) == 1:
            call(C.sk_graph_set_bool, self._p, cstr(name), bool(value))
        else:
            call(C.sk_graph_set_float, self._p, cstr(name), float(value))

    def get(self, name):
        i = C.sk_graph_find_param(self.graph._p, cstr(name))
        if i < 0:
            raise KeyError('no parameter %r' % name)
        return float(C.sk_graph_get_param(self._p, i))

    def trigger(self, name):
        call(C.sk_graph_set_trigger, self._p, cstr(name))

    def update(self, dt):
        C.sk_graph_update(self._p, float(dt))

    def evaluate(self, out=None):
        pose = out if out is not None else Pose(self.graph.skeleton)
        call(C.sk_graph_evaluate, self._p, pose.c)
        return pose

    @property
    def current_state(self):
        return pystr(C.sk_graph_current_state(self._p))

    @property
    def active_states(self):
        n = C.sk_graph_active_states(self._p, ffi.NULL, 0)
        arr = ffi.new('sk_graph_state_info[]', max(n, 1))
        n = C.sk_graph_active_states(self._p, arr, n)
        return [{'name': pystr(s.name), 'depth': int(s.depth), 'weight': float(s.weight),
                 'global_weight': float(s.global_weight), 'current': bool(s.current),
                 'normalized_time': float(s.normalized_time)} for s in arr[0:n]]

    @property
    def root_motion(self):
        d = C.sk_graph_root_motion(self._p)
        return (d.translation.x, d.translation.y, d.translation.z), float(d.yaw)
