"""Terrains: the ground as a ray-cast query (built-in shapes, triangle meshes)."""
import numpy as np

from ._lib import C, call, ffi, ptr


def _vec3(c, v):
    c.x, c.y, c.z = (float(x) for x in v)


class Terrain:
    """An sk_terrain and what it reads (kept alive with it). Build with the class methods."""

    def __init__(self, c, keep):
        self.c = c          # sk_terrain * (the struct is passed by value where the library wants it)
        self._keep = keep

    @classmethod
    def flat(cls, height=0.0):
        shape = ffi.new('sk_terrain_shape *')
        t = ffi.new('sk_terrain *', C.sk_terrain_flat(shape, height))
        return cls(t, shape)

    @classmethod
    def _shape(cls, fn, ctype, kw, vecs):
        shape, o, t = ffi.new('sk_terrain_shape *'), ffi.new(ctype), ffi.new('sk_terrain *')
        for k, v in kw.items():
            if k in vecs:
                _vec3(getattr(o, k), v)
            else:
                setattr(o, k, v)
        call(fn, shape, o, t)
        return cls(t, shape)

    @classmethod
    def ramp(cls, **kw):
        """angle (rad), start (x, y, z), direction, length (0: endless)."""
        return cls._shape(C.sk_terrain_ramp, 'sk_terrain_ramp_options *', kw, ('start', 'direction'))

    @classmethod
    def stairs(cls, **kw):
        """rise, run (m), start (x, y, z), direction, count (0: endless)."""
        return cls._shape(C.sk_terrain_stairs, 'sk_terrain_stairs_options *', kw, ('start', 'direction'))

    @classmethod
    def bumps(cls, **kw):
        """amplitude, wavelength (m), seed, base."""
        return cls._shape(C.sk_terrain_bumps, 'sk_terrain_bumps_options *', kw, ())

    @classmethod
    def ledge(cls, **kw):
        """height, floor, edge (x, y, z), direction."""
        return cls._shape(C.sk_terrain_ledge, 'sk_terrain_ledge_options *', kw, ('edge', 'direction'))

    @classmethod
    def mesh(cls, positions, indices):
        """A triangle-mesh terrain: positions (v, 3), indices (t, 3)."""
        pos = np.ascontiguousarray(positions, np.float32).reshape(-1, 3)
        idx = np.ascontiguousarray(indices, np.uint32).reshape(-1, 3)
        out = ffi.new('sk_terrain_mesh **')
        call(C.sk_terrain_mesh_create, ptr(pos, 'float *'), len(pos), ptr(idx, 'uint32_t *'), len(idx), ffi.NULL,
             ffi.NULL, out)
        m = ffi.gc(out[0], C.sk_terrain_mesh_destroy)
        t = ffi.new('sk_terrain *', C.sk_terrain_mesh_terrain(m))
        return cls(t, m)

    def raycast(self, origin, direction, max_distance):
        """(point, normal, distance) of the first hit, or None."""
        o, d, h = ffi.new('sk_vec3 *'), ffi.new('sk_vec3 *'), ffi.new('sk_terrain_hit *')
        _vec3(o, origin)
        _vec3(d, direction)
        if not C.sk_terrain_raycast(self.c, o[0], d[0], float(max_distance), h):
            return None
        return ((h.point.x, h.point.y, h.point.z), (h.normal.x, h.normal.y, h.normal.z), float(h.distance))

    def height(self, x, z, y_from=1e3, max_drop=2e3):
        """Ground height under (x, z), looking down from y_from; None where there is none."""
        h = ffi.new('sk_terrain_hit *')
        if not C.sk_terrain_height(self.c, float(x), float(z), float(y_from), float(max_drop), h):
            return None
        return float(h.point.y)

    def height_bound(self, x, z):
        """No ground under (x, z) above this height (-inf: none there), where the terrain bounds it
        cheaply (a triangle mesh: the highest triangle of its grid cell); None for the others."""
        y = ffi.new('float *')
        if not C.sk_terrain_height_bound(self.c, float(x), float(z), y):
            return None
        return float(y[0])
